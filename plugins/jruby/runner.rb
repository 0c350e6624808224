# runner.rb - kiln's iteration runner for JRuby (the `jruby` plugin).
#
#     jruby [-J profiling switches] [VM args] runner.rb BENCH.rb
#
# The protocol loop is the CRuby runner's (plugins/ruby/kiln_loop.rb).  With
# KILN_INSTRUMENT=1, JvmMeter reads the JVM's MX beans just outside each
# iteration's clock reads, as the java plugin's KilnRunner does: collection
# count and time of each GarbageCollectorMXBean, HotSpot's total compilation
# time, the used heap; and JRuby's own JIT (Ruby methods compiled to JVM
# bytecode): methods compiled and failed, bytecode bytes generated.  The
# beans count whole milliseconds.  Values are kept in preallocated Java
# long arrays; jruby.kiln.jsonl is written after the last iteration.
require "java"
require "jruby"
require_relative "../ruby/kiln_loop"

class JvmMeter
  java_import java.lang.management.ManagementFactory

  def initialize(n)
    @n = n
    @gcs = ManagementFactory.getGarbageCollectorMXBeans.to_a
    @names = @gcs.map { |g| g.getName.downcase.gsub(/[^a-z0-9]+/, "_").gsub(/^_|_$/, "") }
    cb = ManagementFactory.getCompilationMXBean
    @jit = cb && cb.isCompilationTimeMonitoringSupported ? cb : nil
    @rjit = JRuby.runtime.getJITCompiler
    @rt = java.lang.Runtime.getRuntime
    ng = @gcs.size
    @c0 = Java::long[ng].new
    @t0 = Java::long[ng].new
    @count = Array.new(ng) { Java::long[n].new }
    @time = Array.new(ng) { Java::long[n].new }
    @jit_ms = Java::long[n].new
    @heap = Java::long[n].new
    @compiled = Java::long[n].new
    @failed = Java::long[n].new
    @bytecode = Java::long[n].new
    @j0 = @s0 = @f0 = @b0 = 0
  end

  def file
    "jruby.kiln.jsonl"
  end

  # the beans' reads inside ThreadCpuClock's, which allocate (kiln_loop.rb)
  def gc_inside_cpu?
    true
  end

  def start(_i)
    @s0 = @rjit.getSuccessCount
    @f0 = @rjit.getFailCount
    @b0 = @rjit.getCodeSize
    @j0 = @jit ? @jit.getTotalCompilationTime : 0
    g = 0
    while g < @gcs.size
      @c0[g] = @gcs[g].getCollectionCount
      @t0[g] = @gcs[g].getCollectionTime
      g += 1
    end
  end

  def stop(i)
    g = 0
    while g < @gcs.size
      @count[g][i] = @gcs[g].getCollectionCount - @c0[g]
      @time[g][i] = @gcs[g].getCollectionTime - @t0[g]
      g += 1
    end
    @jit_ms[i] = @jit.getTotalCompilationTime - @j0 if @jit
    @heap[i] = @rt.totalMemory - @rt.freeMemory
    @compiled[i] = @rjit.getSuccessCount - @s0
    @failed[i] = @rjit.getFailCount - @f0
    @bytecode[i] = @rjit.getCodeSize - @b0
  end

  def write(io)
    @n.times do |i|
      count = ms = 0
      @gcs.size.times do |g|
        KilnLoop.record(io, i, "gc.#{@names[g]}.count", @count[g][i])
        KilnLoop.record(io, i, "gc.#{@names[g]}.time", @time[g][i] / 1e3, "s")
        count += @count[g][i]
        ms += @time[g][i]
      end
      KilnLoop.record(io, i, "gc.count", count)
      KilnLoop.record(io, i, "gc.time", ms / 1e3, "s")
      KilnLoop.record(io, i, "jit.time", @jit_ms[i] / 1e3, "s") if @jit
      KilnLoop.record(io, i, "heap", @heap[i], "bytes")
      KilnLoop.record(io, i, "jruby.jit.compiled", @compiled[i])
      KilnLoop.record(io, i, "jruby.jit.failed", @failed[i])
      KilnLoop.record(io, i, "jruby.jit.bytecode_added", @bytecode[i], "bytes")
    end
  end
end

# the JVM's CPU time during an iteration: JRuby has no
# CLOCK_PROCESS_CPUTIME_ID, and HotSpot's process CPU time counts 10 ms
# ticks, so, as the java runner does, the live threads' CPU times are read
# before and after and each thread's difference added (a thread that ended
# meanwhile is lost)
class ThreadCpuClock
  def initialize
    @tmx = java.lang.management.ManagementFactory.getThreadMXBean
    @times = {}
  end

  def start
    @times.clear
    ids = @tmx.getAllThreadIds
    ids.each { |id| @times[id] = @tmx.getThreadCpuTime(id) }
  end

  def stop
    sum = 0
    @tmx.getAllThreadIds.each do |id|
      t = @tmx.getThreadCpuTime(id)
      next if t < 0
      b = @times[id]
      sum += t - (b && b >= 0 ? b : 0)
    end
    sum
  end
end

KilnLoop.run(ARGV[0], JvmMeter, ThreadCpuClock.new)
