# runner.rb - kiln's iteration runner for CRuby (the `ruby` plugin).
#
#     ruby [variant switches] [VM args] runner.rb BENCH.rb
#
# The protocol loop is KilnLoop (kiln_loop.rb beside this file).  With
# KILN_INSTRUMENT=1, GcMeter reads, just outside each iteration's clock
# reads, GC.stat's counters (integers, so reading them allocates nothing)
# and GC.total_time (nanoseconds, Ruby >= 3.1), and after the iteration the
# heap's live slots and the RSS; with YJIT on, its code size
# (RubyVM::YJIT.runtime_stats) and, in a YJIT stats build, every integer
# statistic's difference.  Everything is kept in preallocated arrays and
# written to ruby.kiln.jsonl after the last iteration.
require "etc"
require_relative "kiln_loop"

class GcMeter
  STATS = %i[count minor_gc_count major_gc_count total_allocated_objects].freeze
  SLOT = (GC::INTERNAL_CONSTANTS[:RVALUE_SIZE] rescue 40) || 40
  HAVE_TIME = GC.respond_to?(:total_time)
  PAGE = Etc.sysconf(Etc::SC_PAGESIZE)

  def initialize(n)
    @n = n
    @before = Array.new(STATS.size + 1, 0)
    @delta = Array.new(STATS.size + 1) { Array.new(n, 0) }
    @heap = Array.new(n, 0)
    @rss = Array.new(n, nil)
    @yjit = defined?(RubyVM::YJIT) && RubyVM::YJIT.enabled?
    @yjit_stats = @yjit && RubyVM::YJIT.respond_to?(:stats_enabled?) && RubyVM::YJIT.stats_enabled?
    @code = Array.new(n, 0)
    @added = Array.new(n, 0)
    @code_before = 0
    @ystats = {}
    @ybefore = nil
  end

  def file
    "ruby.kiln.jsonl"
  end

  def start(_i)
    if @yjit
      s = RubyVM::YJIT.runtime_stats
      @code_before = code_size(s)
      @ybefore = s if @yjit_stats
    end
    k = 0
    while k < STATS.size
      @before[k] = GC.stat(STATS[k])
      k += 1
    end
    @before[k] = HAVE_TIME ? GC.total_time : 0
  end

  def stop(i)
    t = HAVE_TIME ? GC.total_time : 0
    k = 0
    while k < STATS.size
      @delta[k][i] = GC.stat(STATS[k]) - @before[k]
      k += 1
    end
    @delta[k][i] = t - @before[k]
    @heap[i] = GC.stat(:heap_live_slots) * SLOT
    @rss[i] = rss
    return unless @yjit
    s = RubyVM::YJIT.runtime_stats
    @code[i] = code_size(s)
    @added[i] = @code[i] - @code_before
    yjit_deltas(i, s) if @yjit_stats
  end

  def write(io)
    @n.times do |i|
      KilnLoop.record(io, i, "gc.count", @delta[0][i])
      KilnLoop.record(io, i, "ruby.gc.minor_count", @delta[1][i])
      KilnLoop.record(io, i, "ruby.gc.major_count", @delta[2][i])
      KilnLoop.record(io, i, "ruby.allocated_objects", @delta[3][i])
      KilnLoop.record(io, i, "gc.time", @delta[4][i] / 1e9, "s") if HAVE_TIME
      KilnLoop.record(io, i, "heap", @heap[i], "bytes")
      KilnLoop.record(io, i, "rss", @rss[i], "bytes") if @rss[i]
      next unless @yjit
      KilnLoop.record(io, i, "jit.code_size", @code[i], "bytes")
      KilnLoop.record(io, i, "jit.code_added", @added[i], "bytes")
      @ystats.each { |name, v| KilnLoop.record(io, i, "yjit.#{name}", v[i]) }
    end
  end

  private

  def code_size(s)
    return 0 unless s
    (s[:inline_code_size] || 0) + (s[:outlined_code_size] || 0)
  end

  # a YJIT stats build: the difference of every integer statistic
  def yjit_deltas(i, s)
    s.each do |name, v|
      next unless v.is_a?(Integer) && @ybefore[name].is_a?(Integer)
      next if name == :inline_code_size || name == :outlined_code_size
      (@ystats[name] ||= Array.new(@n, 0))[i] = v - @ybefore[name]
    end
  end

  def rss
    File.read("/proc/self/statm").split[1].to_i * PAGE
  rescue StandardError
    nil
  end
end

KilnLoop.run(ARGV[0], GcMeter)
