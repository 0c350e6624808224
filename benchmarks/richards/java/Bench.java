/*
 * richards (Java) - Martin Richards' OS simulation; see ../README.md.
 * Six tasks pass packets through a priority scheduler until the idle task
 * has counted down from `param`.  checksum() is
 * queue_count * 1000000 + hold_count (param 1000: 2322 and 928).
 */
public final class Bench implements KilnBenchmark {
	static final int I_IDLE = 0, I_WORK = 1, I_HANDLER_A = 2, I_HANDLER_B = 3, I_DEV_A = 4, I_DEV_B = 5;
	static final int K_DEV = 0, K_WORK = 1;
	static final int DATA_SIZE = 4;

	static final class Packet {
		Packet link;
		int id, kind, a1;
		final int[] a2 = new int[DATA_SIZE];

		Packet(Packet link, int id, int kind) {
			this.link = link;
			this.id = id;
			this.kind = kind;
		}

		/* append this to queue q, return the queue's head */
		Packet addTo(Packet q) {
			link = null;
			if (q == null)
				return this;
			Packet last = q;
			while (last.link != null)
				last = last.link;
			last.link = this;
			return q;
		}
	}

	abstract static class Task {
		final Task link;
		final int id, pri;
		Packet queue;
		boolean pending, waiting = true, held;

		Task(Scheduler s, int id, int pri, Packet queue) {
			this.link = s.list;
			this.id = id;
			this.pri = pri;
			this.queue = queue;
			this.pending = queue != null;
			s.list = s.cur = s.blocks[id] = this;
		}

		boolean heldOrSuspended() {
			return held || (waiting && !pending);
		}

		Task run(Scheduler s) {
			Packet p = null;
			if (waiting && pending) {
				p = queue;
				queue = p.link;
				pending = queue != null;
				waiting = false;
			}
			return step(s, p);
		}

		abstract Task step(Scheduler s, Packet p);
	}

	static final class IdleTask extends Task {
		int seed = 1;
		long count;

		IdleTask(Scheduler s, int id, int pri, Packet q, long count) {
			super(s, id, pri, q);
			this.count = count;
		}

		@Override
		Task step(Scheduler s, Packet p) {
			if (--count == 0)
				return s.holdCurrent();
			if ((seed & 1) == 0) {
				seed >>= 1;
				return s.release(I_DEV_A);
			}
			seed = (seed >> 1) ^ 0xD008;
			return s.release(I_DEV_B);
		}
	}

	static final class WorkerTask extends Task {
		int dest = I_HANDLER_A, counter;

		WorkerTask(Scheduler s, int id, int pri, Packet q) {
			super(s, id, pri, q);
		}

		@Override
		Task step(Scheduler s, Packet p) {
			if (p == null)
				return s.suspendCurrent();
			dest = dest == I_HANDLER_A ? I_HANDLER_B : I_HANDLER_A;
			p.id = dest;
			p.a1 = 0;
			for (int i = 0; i < DATA_SIZE; i++) {
				if (++counter > 26)
					counter = 1;
				p.a2[i] = counter;
			}
			return s.queuePacket(p);
		}
	}

	static final class HandlerTask extends Task {
		Packet work, dev;

		HandlerTask(Scheduler s, int id, int pri, Packet q) {
			super(s, id, pri, q);
		}

		@Override
		Task step(Scheduler s, Packet p) {
			if (p != null) {
				if (p.kind == K_WORK)
					work = p.addTo(work);
				else
					dev = p.addTo(dev);
			}
			Packet w = work;
			if (w != null) {
				int n = w.a1;
				if (n < DATA_SIZE) {
					Packet d = dev;
					if (d != null) {
						dev = d.link;
						d.a1 = w.a2[n];
						w.a1 = n + 1;
						return s.queuePacket(d);
					}
				} else {
					work = w.link;
					return s.queuePacket(w);
				}
			}
			return s.suspendCurrent();
		}
	}

	static final class DeviceTask extends Task {
		Packet pkt;

		DeviceTask(Scheduler s, int id, int pri, Packet q) {
			super(s, id, pri, q);
		}

		@Override
		Task step(Scheduler s, Packet p) {
			if (p == null) {
				Packet v = pkt;
				if (v == null)
					return s.suspendCurrent();
				pkt = null;
				return s.queuePacket(v);
			}
			pkt = p;
			return s.holdCurrent();
		}
	}

	static final class Scheduler {
		Task list, cur;
		int curId;
		final Task[] blocks = new Task[6];
		long queueCount, holdCount;

		Task release(int id) {
			Task t = blocks[id];
			t.held = false;
			return t.pri > cur.pri ? t : cur;
		}

		Task holdCurrent() {
			holdCount++;
			cur.held = true;
			return cur.link;
		}

		Task suspendCurrent() {
			cur.waiting = true;
			return cur;
		}

		/* send p to the task it names; the sender's id goes in the packet */
		Task queuePacket(Packet p) {
			Task t = blocks[p.id];
			queueCount++;
			p.link = null;
			p.id = curId;
			if (t.queue == null) {
				t.queue = p;
				t.pending = true;
				if (t.pri > cur.pri)
					return t;
			} else {
				t.queue = p.addTo(t.queue);
			}
			return cur;
		}

		void schedule() {
			cur = list;
			while (cur != null) {
				Task t = cur;
				if (t.heldOrSuspended()) {
					cur = t.link;
				} else {
					curId = t.id;
					cur = t.run(this);
				}
			}
		}
	}

	private long result;

	@Override
	public void runIter(long param) {
		Scheduler s = new Scheduler();
		IdleTask idle = new IdleTask(s, I_IDLE, 0, null, param);
		idle.pending = idle.waiting = idle.held = false; // the idle task starts running

		new WorkerTask(s, I_WORK, 1000, new Packet(new Packet(null, I_WORK, K_WORK), I_WORK, K_WORK));
		Packet q = new Packet(new Packet(new Packet(null, I_DEV_A, K_DEV), I_DEV_A, K_DEV), I_DEV_A, K_DEV);
		new HandlerTask(s, I_HANDLER_A, 2000, q);
		q = new Packet(new Packet(new Packet(null, I_DEV_B, K_DEV), I_DEV_B, K_DEV), I_DEV_B, K_DEV);
		new HandlerTask(s, I_HANDLER_B, 3000, q);
		new DeviceTask(s, I_DEV_A, 4000, null);
		new DeviceTask(s, I_DEV_B, 5000, null);

		s.schedule();
		result = s.queueCount * 1000000 + s.holdCount;
	}

	@Override
	public long checksum() {
		return result;
	}
}
