-- richards (Lua 5.4 and LuaJIT) - Martin Richards' OS simulation; see
-- ../README.md.  Six tasks pass packets through a priority scheduler until the
-- idle task has counted down from `param`.  checksum() is
-- queue_count * 1000000 + hold_count (param 1000: 2322 and 928).
--
-- The idle task needs and/shift/xor on small non-negative integers: LuaJIT
-- has the `bit` library, Lua 5.4 native operators, which are compiled from a
-- string so that LuaJIT (Lua 5.1 syntax) never has to parse them.

local band, rshift, bxor
local has_bit, bit = pcall(require, "bit")
if has_bit then
	band, rshift, bxor = bit.band, bit.rshift, bit.bxor
else
	band, rshift, bxor = load([[
		return function(a, b) return a & b end,
		       function(a, n) return a >> n end,
		       function(a, b) return a ~ b end]])()
end

local I_IDLE, I_WORK, I_HANDLER_A, I_HANDLER_B, I_DEV_A, I_DEV_B = 1, 2, 3, 4, 5, 6
local K_DEV, K_WORK = 0, 1
local DATA_SIZE = 4

local function packet(link, id, kind)
	return { link = link, id = id, kind = kind, a1 = 0, a2 = { 0, 0, 0, 0 } }
end

-- append p to the end of queue q, return the queue's head
local function add_to(p, q)
	p.link = nil
	if q == nil then
		return p
	end
	local last = q
	while last.link ~= nil do
		last = last.link
	end
	last.link = p
	return q
end

-- the scheduler: s.list (task list), s.cur (running task), s.blocks[id]
local function release(s, id)
	local t = s.blocks[id]
	t.held = false
	if t.pri > s.cur.pri then
		return t
	end
	return s.cur
end

local function hold_current(s)
	s.hold_count = s.hold_count + 1
	s.cur.held = true
	return s.cur.link
end

local function suspend_current(s)
	s.cur.waiting = true
	return s.cur
end

-- send p to the task it names; the sender's id goes in the packet
local function queue_packet(s, p)
	local t = s.blocks[p.id]
	s.queue_count = s.queue_count + 1
	p.link = nil
	p.id = s.cur_id
	if t.queue == nil then
		t.queue = p
		t.pending = true
		if t.pri > s.cur.pri then
			return t
		end
	else
		t.queue = add_to(p, t.queue)
	end
	return s.cur
end

local function idle_step(s, t, p)
	t.count = t.count - 1
	if t.count == 0 then
		return hold_current(s)
	end
	if band(t.seed, 1) == 0 then
		t.seed = rshift(t.seed, 1)
		return release(s, I_DEV_A)
	end
	t.seed = bxor(rshift(t.seed, 1), 0xD008)
	return release(s, I_DEV_B)
end

local function worker_step(s, t, p)
	if p == nil then
		return suspend_current(s)
	end
	if t.dest == I_HANDLER_A then
		t.dest = I_HANDLER_B
	else
		t.dest = I_HANDLER_A
	end
	p.id = t.dest
	p.a1 = 0
	local a2 = p.a2
	for i = 1, DATA_SIZE do
		local c = t.counter + 1
		if c > 26 then
			c = 1
		end
		t.counter = c
		a2[i] = c
	end
	return queue_packet(s, p)
end

local function handler_step(s, t, p)
	if p ~= nil then
		if p.kind == K_WORK then
			t.work = add_to(p, t.work)
		else
			t.dev = add_to(p, t.dev)
		end
	end
	local w = t.work
	if w ~= nil then
		local n = w.a1
		if n < DATA_SIZE then
			local d = t.dev
			if d ~= nil then
				t.dev = d.link
				d.a1 = w.a2[n + 1]
				w.a1 = n + 1
				return queue_packet(s, d)
			end
		else
			t.work = w.link
			return queue_packet(s, w)
		end
	end
	return suspend_current(s)
end

local function device_step(s, t, p)
	if p == nil then
		local v = t.pkt
		if v == nil then
			return suspend_current(s)
		end
		t.pkt = nil
		return queue_packet(s, v)
	end
	t.pkt = p
	return hold_current(s)
end

local function add_task(s, id, pri, queue, step)
	local t = {
		link = s.list, id = id, pri = pri, queue = queue, step = step,
		pending = queue ~= nil, waiting = true, held = false,
	}
	s.list, s.cur, s.blocks[id] = t, t, t
	return t
end

local function schedule(s)
	local t = s.list
	while t ~= nil do
		if t.held or (t.waiting and not t.pending) then
			t = t.link
		else
			s.cur_id = t.id
			s.cur = t
			local p = nil
			if t.waiting and t.pending then
				p = t.queue
				t.queue = p.link
				t.pending = t.queue ~= nil
				t.waiting = false
			end
			t = t.step(s, t, p)
		end
	end
end

local result = 0

local function run_iter(param)
	local s = { blocks = {}, queue_count = 0, hold_count = 0, cur_id = 0 }
	local t = add_task(s, I_IDLE, 0, nil, idle_step)
	t.seed, t.count = 1, param
	t.pending, t.waiting, t.held = false, false, false -- the idle task starts running

	local q = packet(packet(nil, I_WORK, K_WORK), I_WORK, K_WORK)
	t = add_task(s, I_WORK, 1000, q, worker_step)
	t.dest, t.counter = I_HANDLER_A, 0

	q = packet(packet(packet(nil, I_DEV_A, K_DEV), I_DEV_A, K_DEV), I_DEV_A, K_DEV)
	add_task(s, I_HANDLER_A, 2000, q, handler_step)
	q = packet(packet(packet(nil, I_DEV_B, K_DEV), I_DEV_B, K_DEV), I_DEV_B, K_DEV)
	add_task(s, I_HANDLER_B, 3000, q, handler_step)

	add_task(s, I_DEV_A, 4000, nil, device_step)
	add_task(s, I_DEV_B, 5000, nil, device_step)

	schedule(s)
	result = s.queue_count * 1000000 + s.hold_count
end

return { run_iter = run_iter, checksum = function() return result end }
