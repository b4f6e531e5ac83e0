// A clock the tests set: the museum's date and time of day are whatever the test says they are.
import type { Clock } from '../../src/common/dates.ts';
import { todayUtc } from './museum.ts';

export interface SetClock extends Clock {
  /** From now on, it is `time` ('HH:MM') on `date` (default: today, UTC) in the museum. */
  set(time: string, date?: string): void;
}

export function setClock(time = '12:00', date = todayUtc()): SetClock {
  let now = { date, minute: 0 };
  const clock: SetClock = {
    today: () => now.date,
    now: () => ({ today: now.date, minuteOfDay: now.minute }),
    set(time, date = todayUtc()) {
      now = { date, minute: Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5)) };
    },
  };
  clock.set(time, date);
  return clock;
}
