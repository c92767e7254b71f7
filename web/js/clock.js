// Turn clocks in words: what a game's creator may choose, and how long a seat has left.
// The view is the source (`clock`, `deadlines`: docs/api.md "Turn clocks"); the time
// left is counted down here between two reads of it.

/** What happens to a seat whose time runs out (the clock's `policy`). */
export const CLOCK_POLICIES = {
  'bot:greedy': 'a greedy bot decides',
  'bot:random': 'a random bot decides',
  forfeit: 'the player forfeits',
};

/** A whole number of seconds as people say it: "30 s", "2 min", "1 h 30 min", "1 day". */
export function duration(seconds) {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return seconds % 60 ? `${Math.floor(seconds / 60)} min ${seconds % 60} s` : `${seconds / 60} min`;
  if (seconds < 86400) {
    const minutes = Math.floor((seconds % 3600) / 60);
    return `${Math.floor(seconds / 3600)} h${minutes ? ` ${minutes} min` : ''}`;
  }
  const days = Math.floor(seconds / 86400);
  const hours = Math.floor((seconds % 86400) / 3600);
  return `${days} day${days === 1 ? '' : 's'}${hours ? ` ${hours} h` : ''}`;
}

/** The sentence describing a game's clock (null: the game has none). */
export function clockText(clock) {
  if (!clock) return null;
  const reserve = clock.reserve_s ? ` + ${duration(clock.reserve_s)} in reserve` : '';
  const policy = CLOCK_POLICIES[clock.policy] || clock.policy;
  return `Turn clock: ${duration(clock.per_decision_s)} a decision${reserve}; when time runs out, ${policy}.`;
}

/** Time left until `atMs` (Unix ms) at `nowMs`: "0:27", "12:05", "3 h 5 min"; "0:00" once past. */
export function timeLeft(atMs, nowMs) {
  const left = Math.max(0, Math.ceil((atMs - nowMs) / 1000));
  if (left >= 3600) return duration(left - (left % 60));
  return `${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}`;
}
