// richards (JavaScript) - Martin Richards' OS simulation; see ../README.md.
// Six tasks pass packets through a priority scheduler until the idle task
// has counted down from `param`.  checksum() is
// queue_count * 1000000 + hold_count (param 1000: 2322 and 928).
'use strict';

const I_IDLE = 0, I_WORK = 1, I_HANDLER_A = 2, I_HANDLER_B = 3, I_DEV_A = 4, I_DEV_B = 5;
const K_DEV = 0, K_WORK = 1;
const DATA_SIZE = 4;

class Packet {
	constructor(link, id, kind) {
		this.link = link;
		this.id = id;
		this.kind = kind;
		this.a1 = 0;
		this.a2 = [0, 0, 0, 0];
	}

	// append this to queue q, return the queue's head
	addTo(q) {
		this.link = null;
		if (q === null)
			return this;
		let last = q;
		while (last.link !== null)
			last = last.link;
		last.link = this;
		return q;
	}
}

class Task {
	constructor(s, id, pri, queue) {
		this.link = s.list;
		this.id = id;
		this.pri = pri;
		this.queue = queue;
		this.pending = queue !== null;
		this.waiting = true;
		this.held = false;
		s.list = s.cur = s.blocks[id] = this;
	}

	heldOrSuspended() {
		return this.held || (this.waiting && !this.pending);
	}

	run(s) {
		let p = null;
		if (this.waiting && this.pending) {
			p = this.queue;
			this.queue = p.link;
			this.pending = this.queue !== null;
			this.waiting = false;
		}
		return this.step(s, p);
	}
}

class IdleTask extends Task {
	constructor(s, id, pri, queue, count) {
		super(s, id, pri, queue);
		this.seed = 1;
		this.count = count;
	}

	step(s) {
		if (--this.count === 0)
			return s.holdCurrent();
		if ((this.seed & 1) === 0) {
			this.seed >>= 1;
			return s.release(I_DEV_A);
		}
		this.seed = (this.seed >> 1) ^ 0xD008;
		return s.release(I_DEV_B);
	}
}

class WorkerTask extends Task {
	constructor(s, id, pri, queue) {
		super(s, id, pri, queue);
		this.dest = I_HANDLER_A;
		this.counter = 0;
	}

	step(s, p) {
		if (p === null)
			return s.suspendCurrent();
		this.dest = this.dest === I_HANDLER_A ? I_HANDLER_B : I_HANDLER_A;
		p.id = this.dest;
		p.a1 = 0;
		for (let i = 0; i < DATA_SIZE; i++) {
			if (++this.counter > 26)
				this.counter = 1;
			p.a2[i] = this.counter;
		}
		return s.queuePacket(p);
	}
}

class HandlerTask extends Task {
	constructor(s, id, pri, queue) {
		super(s, id, pri, queue);
		this.work = null;
		this.dev = null;
	}

	step(s, p) {
		if (p !== null) {
			if (p.kind === K_WORK)
				this.work = p.addTo(this.work);
			else
				this.dev = p.addTo(this.dev);
		}
		const w = this.work;
		if (w !== null) {
			const n = w.a1;
			if (n < DATA_SIZE) {
				const d = this.dev;
				if (d !== null) {
					this.dev = d.link;
					d.a1 = w.a2[n];
					w.a1 = n + 1;
					return s.queuePacket(d);
				}
			} else {
				this.work = w.link;
				return s.queuePacket(w);
			}
		}
		return s.suspendCurrent();
	}
}

class DeviceTask extends Task {
	constructor(s, id, pri, queue) {
		super(s, id, pri, queue);
		this.pkt = null;
	}

	step(s, p) {
		if (p === null) {
			const v = this.pkt;
			if (v === null)
				return s.suspendCurrent();
			this.pkt = null;
			return s.queuePacket(v);
		}
		this.pkt = p;
		return s.holdCurrent();
	}
}

class Scheduler {
	constructor() {
		this.list = null;
		this.cur = null;
		this.curId = 0;
		this.blocks = [null, null, null, null, null, null];
		this.queueCount = 0;
		this.holdCount = 0;
	}

	release(id) {
		const t = this.blocks[id];
		t.held = false;
		return t.pri > this.cur.pri ? t : this.cur;
	}

	holdCurrent() {
		this.holdCount++;
		this.cur.held = true;
		return this.cur.link;
	}

	suspendCurrent() {
		this.cur.waiting = true;
		return this.cur;
	}

	// send p to the task it names; the sender's id goes in the packet
	queuePacket(p) {
		const t = this.blocks[p.id];
		this.queueCount++;
		p.link = null;
		p.id = this.curId;
		if (t.queue === null) {
			t.queue = p;
			t.pending = true;
			if (t.pri > this.cur.pri)
				return t;
		} else {
			t.queue = p.addTo(t.queue);
		}
		return this.cur;
	}

	schedule() {
		this.cur = this.list;
		while (this.cur !== null) {
			const t = this.cur;
			if (t.heldOrSuspended()) {
				this.cur = t.link;
			} else {
				this.curId = t.id;
				this.cur = t.run(this);
			}
		}
	}
}

let result = 0;

function runIter(param) {
	const s = new Scheduler();
	const idle = new IdleTask(s, I_IDLE, 0, null, param);
	idle.pending = idle.waiting = idle.held = false; // the idle task starts running

	new WorkerTask(s, I_WORK, 1000, new Packet(new Packet(null, I_WORK, K_WORK), I_WORK, K_WORK));
	let q = new Packet(new Packet(new Packet(null, I_DEV_A, K_DEV), I_DEV_A, K_DEV), I_DEV_A, K_DEV);
	new HandlerTask(s, I_HANDLER_A, 2000, q);
	q = new Packet(new Packet(new Packet(null, I_DEV_B, K_DEV), I_DEV_B, K_DEV), I_DEV_B, K_DEV);
	new HandlerTask(s, I_HANDLER_B, 3000, q);
	new DeviceTask(s, I_DEV_A, 4000, null);
	new DeviceTask(s, I_DEV_B, 5000, null);

	s.schedule();
	result = s.queueCount * 1000000 + s.holdCount;
}

module.exports = { run_iter: runIter, checksum: () => result };
