import type { AccessGrants } from '../../capabilities/accessGrants.ts';
import type { Principal } from '../../capabilities/authSession.ts';
import type { DataDatabase } from '../../capabilities/dataDatabase.ts';
import type { DataContext, DataEngine } from '../../capabilities/dataEngine.ts';
import type { MetadataRegistry } from '../../capabilities/metadataRegistry.ts';
import { codedError } from '../../kernel/errors.ts';
import type { Logger } from '../../kernel/logger.ts';
import type { ResolvedForm } from '../../metadata/formTypes.ts';
import { WindowRateLimiter } from '../../kernel/windowRateLimiter.ts';
import { decoyId } from './decoyId.ts';
import { resolveRunAs } from './resolveRunAs.ts';
import { validateSubmission } from './validateSubmission.ts';

export interface SubmitInput {
  environmentId: string;
  principal: Principal | null;
  ip: string;
  requestId: string;
  /** Bytes of the request body as received. */
  bodyBytes: number;
  body: Record<string, unknown>;
}

export interface FormsService {
  list(): ResolvedForm[];
  /** The form a caller may use: 404 unknown, 401 anonymous on a signed-in form, 403 for a password to change. */
  open(slug: string, principal: Principal | null): ResolvedForm;
  schema(form: ResolvedForm): Record<string, unknown>;
  submit(form: ResolvedForm, input: SubmitInput): Promise<{ id: string; message: string }>;
  limiter: WindowRateLimiter;
}

export function createFormsService(metadata: MetadataRegistry, engine: DataEngine, database: DataDatabase, grants: AccessGrants, log: Logger): FormsService {
  const limiter = new WindowRateLimiter('form');
  const list = () => metadata.apps().flatMap((app) => app.forms ?? []);
  return {
    limiter,
    list,
    open(slug, principal) {
      const form = list().find((f) => f.slug === slug);
      if (!form) throw codedError('NOT_FOUND', { what: `Form '${slug.slice(0, 64)}'`, slug: slug.slice(0, 64) });
      if (!form.allowAnonymous && !principal) throw codedError('UNAUTHENTICATED');
      // Public routes skip the guard's check: an account that must change its password does nothing else.
      if (principal?.mustChangePassword) throw codedError('PASSWORD_EXPIRED', { subjectId: principal.userId });
      return form;
    },
    schema(form) {
      return {
        slug: form.slug,
        object: form.object,
        title: form.title,
        description: form.description,
        allowAnonymous: form.allowAnonymous,
        submitLabel: form.submitLabel,
        honeypot: form.honeypot,
        maxBodyBytes: form.maxBodyBytes,
        fields: form.fields.map((f) => ({
          name: f.field, type: f.type, label: f.label, help: f.help, placeholder: f.placeholder, required: f.required,
          maxLength: f.maxLength, min: f.min, max: f.max, options: f.options, reference: f.reference,
        })),
      };
    },
    async submit(form, input) {
      // Counted first: refused and trapped attempts count as much as accepted ones.
      await limiter.hit(`forms|${input.environmentId}|${form.slug}|${input.ip}`, form.rateLimit);
      if (input.bodyBytes > form.maxBodyBytes) throw codedError('PAYLOAD_TOO_LARGE', { limit: form.maxBodyBytes });
      const checked = validateSubmission(form, input.body);
      if (!checked.ok) {
        throw codedError('VALIDATION_ERROR', { summary: checked.errors.map((e) => `${e.path} ${e.message}`).join('; '), errors: checked.errors });
      }
      if (checked.honeypot) {
        log.info({ form: form.slug, ip: input.ip }, 'forms: a submission filled the honeypot input; answered as accepted, nothing stored');
        return { id: decoyId(), message: form.successMessage };
      }
      let ctx: DataContext;
      if (form.runAs !== null) {
        const principal = await resolveRunAs(database, grants, { ...form, runAs: form.runAs }, input.environmentId);
        ctx = { environmentId: input.environmentId, principal, requestId: input.requestId };
      } else {
        // Engine work limited by this function to one create of the form's object with the checked
        // form fields only; a signed-in caller is recorded as its creator and owner. Its lookups may
        // name only records the caller may read (an anonymous caller: none), as in its own write.
        ctx = { environmentId: input.environmentId, principal: input.principal, system: true, lookupReader: input.principal, requestId: input.requestId };
      }
      const record = await engine.create(form.object, checked.values, ctx);
      return { id: String(record.id), message: form.successMessage };
    },
  };
}
