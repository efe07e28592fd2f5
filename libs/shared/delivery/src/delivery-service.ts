import type { BeforeApplicationShutdown, OnApplicationBootstrap } from '@nestjs/common';
import type { DeliveryQueue } from './delivery-queue';

/**
 * The Nest side of a service that delivers a queue: a kick after a change, the queue's tick and
 * purge from bootstrap, and its stop before the HTTP server closes. The service builds its
 * DeliveryQueue (its step, its settings) in its constructor.
 */
export abstract class DeliveryService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  protected abstract readonly queue: DeliveryQueue;

  /** Asks for a round soon, without waiting for it (after a change was committed). */
  kick(): void {
    this.queue.kick();
  }

  /** The tick, the hourly purge and a first round (what a previous run left), unless it is off. */
  onApplicationBootstrap(): void {
    this.queue.start();
  }

  /** Before the HTTP server closes: the round and the purge in flight finish; nothing new starts. */
  beforeApplicationShutdown(): Promise<void> {
    return this.queue.stop();
  }
}
