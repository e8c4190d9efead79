import type { DataContext, DataEngine, DataRecord } from '../../capabilities/dataEngine.ts';
import { codedError, isCodedError } from '../../kernel/errors.ts';

interface FieldError {
  path: string;
  message: string;
}

export interface ConvertInput {
  /** Attach to this existing account instead of creating one. */
  accountId?: string;
  /** Attach to this existing contact instead of creating one. */
  contactId?: string;
  /** true, or fields for the new opportunity (name, amount, close_date, stage...). */
  createOpportunity?: boolean | Record<string, unknown>;
}

export interface ConvertResult {
  lead: DataRecord;
  account: DataRecord;
  contact: DataRecord;
  opportunity: DataRecord | null;
}

const DEFAULT_CLOSE_DAYS = 30;
/** Read-only lead fields only the conversion writes. */
const CONVERSION_FIELDS = ['converted_at', 'converted_account', 'converted_contact', 'converted_opportunity'];

function pick(source: DataRecord, keys: string[]): DataRecord {
  const out: DataRecord = {};
  for (const key of keys) if (source[key] !== null && source[key] !== undefined) out[key] = source[key];
  return out;
}

/** A validation failure while writing one of the records, with paths naming that record (`contact.email`). */
async function step<T>(object: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!isCodedError(error) || error.code !== 'VALIDATION_ERROR' || !Array.isArray(error.details.errors)) throw error;
    const errors = (error.details.errors as FieldError[]).map((e) => ({ ...e, path: `${object}.${e.path}` }));
    throw codedError('VALIDATION_ERROR', { summary: `the new ${object}: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}`, errors });
  }
}

/**
 * Converts a lead into an account, a contact and optionally an opportunity, then marks the lead
 * converted. One transaction: any failure (validation, a missing account, a concurrent change)
 * leaves nothing behind.
 */
export async function convertLead(engine: DataEngine, leadId: string, input: ConvertInput, ctx: DataContext): Promise<ConvertResult> {
  try {
    return await convertOnce(engine, leadId, input, ctx);
  } catch (error) {
    // Two conversions racing: the loser may fail anywhere (say, on the contact's unique email, as the
    // winner's commit lands). If the lead is converted now, that is the answer on every driver.
    if (isCodedError(error) && error.code === 'CONFLICT') throw error;
    const now = await engine.get('lead', leadId, { select: ['status', 'converted_account'] }, ctx).catch(() => null);
    if (now?.status === 'converted') throw alreadyConverted(leadId, now);
    throw error;
  }
}

function alreadyConverted(leadId: string, lead: DataRecord) {
  return codedError('CONFLICT', { summary: `Lead '${leadId}' is already converted`, leadId, account: lead.converted_account });
}

async function convertOnce(engine: DataEngine, leadId: string, input: ConvertInput, ctx: DataContext): Promise<ConvertResult> {
  return engine.transaction(ctx, async (tx) => {
    const lead = await tx.get('lead', leadId, {}, ctx);
    if (lead.status === 'converted') throw alreadyConverted(leadId, lead);
    const account = input.accountId
      ? await tx.get('account', input.accountId, {}, ctx)
      : await step('account', () => tx.create('account', { name: lead.company, ...pick(lead, ['website', 'phone', 'employees']) }, ctx));
    const contact = input.contactId
      ? await tx.get('contact', input.contactId, {}, ctx)
      : await step('contact', () => tx.create('contact', {
        ...pick(lead, ['first_name', 'last_name', 'email', 'phone', 'title']),
        account: account.id,
        ...(lead.source ? { lead_source: lead.source } : {}),
      }, ctx));
    let opportunity: DataRecord | null = null;
    if (input.createOpportunity) {
      const extra = typeof input.createOpportunity === 'object' ? input.createOpportunity : {};
      const close = new Date(Date.now() + DEFAULT_CLOSE_DAYS * 86_400_000).toISOString().slice(0, 10);
      opportunity = await step('opportunity', () => tx.create('opportunity', {
        name: `${String(account.name)} - ${String(lead.last_name)}`,
        close_date: close,
        ...(lead.estimated_value !== null && lead.estimated_value !== undefined ? { amount: lead.estimated_value } : {}),
        ...(lead.source ? { lead_source: lead.source } : {}),
        ...extra,
        account: account.id,
        contact: contact.id,
      }, ctx));
    }
    const converted = await tx.update('lead', leadId, {
      status: 'converted',
      converted_at: new Date().toISOString(),
      converted_account: account.id,
      converted_contact: contact.id,
      converted_opportunity: opportunity?.id ?? null,
    }, { expectedVersion: Number(lead.version) }, { ...ctx, trustedFields: CONVERSION_FIELDS });
    return { lead: converted, account, contact, opportunity };
  });
}
