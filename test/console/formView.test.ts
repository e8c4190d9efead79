/**
 * The record page's form view: the view the user came from when it has a form, else the object's
 * first view with a form, else its default view.
 */
import t from 'tap';
import { formViewOf, type FormViewCandidate } from '../../plugins/console/app/formView.ts';

const view = (object: string, key: string, extra: Partial<FormViewCandidate> = {}): FormViewCandidate => ({ name: `${object}.${key}`, object, default: false, ...extra });
const form = (label: string) => ({ form: { sections: [{ label, fields: ['title'] }] } });

const list = [
  view('ticket', 'all_tickets'),
  view('ticket', 'by_score', form('Scoring')),
  view('ticket', 'open_tickets', { ...form('Ticket'), default: true }),
  view('project', 'default', { ...form('Project'), default: true }),
];

t.equal(formViewOf(list, 'ticket', 'ticket.open_tickets')?.name, 'ticket.open_tickets', 'the view the user came from, which has a form');
t.equal(formViewOf(list, 'ticket', 'ticket.by_score')?.name, 'ticket.by_score', 'another one with a form');
t.equal(formViewOf(list, 'ticket', 'ticket.all_tickets')?.name, 'ticket.by_score', 'came from a view without a form: the first view with one, not the default');
t.equal(formViewOf(list, 'ticket', null)?.name, 'ticket.by_score', 'came from nowhere: the first view with a form');
t.equal(formViewOf(list, 'ticket', 'project.default')?.name, 'ticket.by_score', "a view of another object is not the record's");
t.equal(formViewOf(list, 'ticket', 'ticket.gone')?.name, 'ticket.by_score', 'nor one the user may not use');
const plain = [view('note', 'recent'), view('note', 'mine', { default: true })];
t.equal(formViewOf(plain, 'note', 'note.recent')?.name, 'note.mine', 'no view with a form: the default view');
t.equal(formViewOf(list, 'vault', null), undefined, 'no view of the object: none');
