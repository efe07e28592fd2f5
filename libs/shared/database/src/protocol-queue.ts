import type { PGlite } from '@electric-sql/pglite';

interface QueuedMessage {
  handlerId: number;
  message: Uint8Array;
  onData: (data: Uint8Array) => void;
  resolve: (bytes: number) => void;
  reject: (error: unknown) => void;
}

/** Message types after which a connection leaves the backend to others (outside a transaction). */
const SYNC = 0x53; // 'S': end of an extended-protocol sequence (Parse/Bind/Describe/Execute/Sync)
const QUERY = 0x51; // 'Q': a simple query, answered whole
const TERMINATE = 0x58; // 'X'

/**
 * Feeds protocol messages from many client connections to PGlite's single backend.
 *
 * pglite-socket's own queue only keeps a connection exclusive while a transaction is open,
 * so another connection's messages can land in the middle of an extended-protocol sequence
 * (one connection's Parse, another's Bind): the backend's unnamed statement and error state
 * are shared, answers go astray and a client waits forever. Here a connection keeps the
 * backend from its first message to a boundary (Sync, a simple Query) and, inside a
 * transaction, until the transaction ends.
 *
 * Same interface as pglite-socket's QueryQueueManager, which PGLiteSocketHandler calls.
 */
export class ProtocolQueue {
  private readonly queue: QueuedMessage[] = [];
  private owner: number | null = null;
  private processing = false;

  constructor(private readonly db: PGlite) {}

  enqueue(
    handlerId: number,
    message: Uint8Array,
    onData: (data: Uint8Array) => void,
  ): Promise<number> {
    return new Promise((resolve, reject) => {
      this.queue.push({ handlerId, message, onData, resolve, reject });
      void this.process();
    });
  }

  private async process(): Promise<void> {
    if (this.processing) return;
    this.processing = true;
    try {
      while (this.queue.length) {
        const index =
          this.owner === null ? 0 : this.queue.findIndex((m) => m.handlerId === this.owner);
        if (index === -1) break; // the owner's next message has not arrived yet
        const [item] = this.queue.splice(index, 1);
        let bytes = 0;
        try {
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(item.message, {
              onRawData: (data) => {
                bytes += data.length;
                item.onData(data);
              },
            }),
          );
          item.resolve(bytes);
        } catch (error) {
          item.reject(error);
        }
        const type = item.message[0];
        const boundary = type === SYNC || type === QUERY || type === TERMINATE || type === 0x00; // 0x00: startup
        this.owner = boundary && !this.db.isInTransaction() ? null : item.handlerId;
      }
    } finally {
      this.processing = false;
    }
  }

  getQueueLength(): number {
    return this.queue.length;
  }

  /** A connection went away: drop its queued messages. */
  clearQueueForHandler(handlerId: number): void {
    for (let i = this.queue.length - 1; i >= 0; i--) {
      if (this.queue[i].handlerId === handlerId)
        this.queue.splice(i, 1)[0].reject(new Error('Connection closed'));
    }
  }

  /** A connection went away while it held the backend: roll back what it left open, free the backend. */
  async clearTransactionIfNeeded(handlerId: number): Promise<void> {
    if (this.owner !== handlerId) return;
    if (this.db.isInTransaction()) await this.db.exec('ROLLBACK');
    this.owner = null;
    await this.process();
  }
}
