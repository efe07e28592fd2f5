import { FieldError } from '@bank/shared/errors';
import { TIME_HH_MM_PATTERN, minutesOfDay } from '@bank/shared/validation';
import { LocalDate, compareLocalDates, parseDdMmYyyy, plusCalendar } from '@bank/shared/calendar';

/** Courier slots: exactly 4 hours, within 09:00-21:00 (card-issue spec 2.6, rules 5-6). */
const SLOT_MINUTES = 4 * 60;
const SLOT_EARLIEST_START = 9 * 60;
const SLOT_LATEST_END = 21 * 60;
const COURIER_MAX_DAYS_AHEAD = 7;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const present = (value: unknown) => value !== undefined && value !== null;

/**
 * The cross-field rules of card-issue spec 2.6 on a request body (the `request` member).
 * Works on the raw parsed body, so it can run next to field validation and the caller
 * can report every violation at once; parts whose own shape is wrong are skipped here
 * (field validation reports them).
 *
 * @param today the business date (tomorrow and today + 7 bound the courier date)
 */
export function checkCardIssueRules(body: unknown, today: LocalDate): FieldError[] {
  const errors: FieldError[] = [];
  if (!isObject(body) || !isObject(body.request)) return errors;
  const request = body.request;
  const at = (path: string, message: string) => errors.push({ path: `request.${path}`, message });

  const holder = request.cardHolder;
  if (isObject(holder) && typeof holder.nameless === 'boolean') {
    if (holder.nameless) {
      // Rule 2: a nameless card names nobody.
      for (const field of ['userId', 'embossedName', 'user']) {
        if (present(holder[field]))
          at(`cardHolder.${field}`, 'must be absent when nameless is true');
      }
    } else {
      // Rule 1: userId + embossedName (for oneself) or user (for a third party).
      const self = present(holder.userId) || present(holder.embossedName);
      const thirdParty = present(holder.user);
      if (self && thirdParty) {
        at(
          'cardHolder',
          'give either userId with embossedName (card for oneself) or user (card for a third party), not both',
        );
      } else if (thirdParty) {
        // nothing more to check here
      } else if (!self) {
        at(
          'cardHolder',
          'when nameless is false, give userId with embossedName (card for oneself) or user (card for a third party)',
        );
      } else if (!present(holder.userId)) {
        at('cardHolder.userId', 'is required with embossedName when nameless is false');
      } else if (!present(holder.embossedName)) {
        at('cardHolder.embossedName', 'is required with userId when nameless is false');
      }
    }
  }

  // Rule 3: PLASTIC needs a delivery, VIRTUAL forbids one.
  const delivery = request.delivery;
  if (request.formFactor === 'PLASTIC' && !present(delivery))
    at('delivery', 'is required for a PLASTIC card');
  if (request.formFactor === 'VIRTUAL' && present(delivery))
    at('delivery', 'must be absent for a VIRTUAL card');

  if (isObject(delivery)) {
    // Rule 4: one delivery method.
    const methods = ['toBranch', 'courier'].filter((m) => present(delivery[m]));
    if (methods.length !== 1) {
      at(
        'delivery',
        methods.length
          ? 'give one delivery method: toBranch or courier, not both'
          : 'give one delivery method: toBranch or courier',
      );
    }
    const courier = delivery.courier;
    if (isObject(courier)) checkCourier(courier, today, at);
  }
  return errors;
}

function checkCourier(
  courier: Json,
  today: LocalDate,
  at: (path: string, message: string) => void,
): void {
  // Rule 5: from tomorrow to today + 7 days.
  if (typeof courier.date === 'string') {
    const date = parseDdMmYyyy(courier.date);
    if (date) {
      const earliest = plusCalendar(today, { days: 1 });
      const latest = plusCalendar(today, { days: COURIER_MAX_DAYS_AHEAD });
      if (compareLocalDates(date, earliest) < 0 || compareLocalDates(date, latest) > 0) {
        at('delivery.courier.date', 'must be from tomorrow to today + 7 days');
      }
    }
  }

  // Rule 6: exactly 4 hours, starting no earlier than 09:00, ending no later than 21:00.
  const slot = courier.timeSlot;
  if (isObject(slot) && typeof slot.from === 'string' && typeof slot.to === 'string') {
    if (TIME_HH_MM_PATTERN.test(slot.from) && TIME_HH_MM_PATTERN.test(slot.to)) {
      const from = minutesOfDay(slot.from);
      const to = minutesOfDay(slot.to);
      if (from < SLOT_EARLIEST_START)
        at('delivery.courier.timeSlot.from', 'must be 09:00 or later');
      if (to > SLOT_LATEST_END) at('delivery.courier.timeSlot.to', 'must be 21:00 or earlier');
      if (to - from !== SLOT_MINUTES) at('delivery.courier.timeSlot', 'must last exactly 4 hours');
    }
  }

  // Rule 7: an existing user or a new third party, one of the two.
  const recipient = courier.recipient;
  if (isObject(recipient)) {
    const given = ['userId', 'user'].filter((m) => present(recipient[m]));
    if (given.length !== 1) {
      at(
        'delivery.courier.recipient',
        given.length
          ? 'give userId or user, not both'
          : 'give userId (existing user) or user (new third party)',
      );
    }
  }
}
