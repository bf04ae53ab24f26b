import type { Redis } from 'ioredis';

/**
 * Makes the commands a connection is given in one turn of the event loop leave in one write to
 * its socket, instead of one write each. Nothing else changes: the commands go in the order they
 * were issued, on the same connection, and each still waits for its own reply; they only share a
 * system call. A worker issues many commands in one turn: the continuations of every reply that one
 * read of the socket brought (a dozen jobs' ledger claims, budget tickets, outcomes) each issue
 * their next command before the turn ends. One write each meant a system call per command, and
 * on a machine whose cores are all busy, waking Redis on each of them handed it the core in the
 * middle of the turn (docs/benchmarks.md, throughput).
 *
 * The socket is corked at the first command of a turn and uncorked at `process.nextTick`, which
 * runs once the turn's promise continuations are done. A socket that closes meanwhile keeps what
 * ioredis does with an unsent command (`end()` flushes, a lost connection fails or resends it).
 */
export function batchWrites(redis: Redis): void {
  const send = redis.sendCommand;
  let corked: Redis['stream'] | undefined;
  const uncork = (): void => {
    const stream = corked;
    corked = undefined;
    stream?.uncork();
  };
  redis.sendCommand = function (this: Redis, command, stream) {
    // A pipeline (`stream` given) writes its commands in one go already.
    if (corked === undefined && stream === undefined && this.stream !== undefined && this.stream.writable) {
      corked = this.stream;
      corked.cork();
      process.nextTick(uncork);
    }
    return send.call(this, command, stream);
  };
}
