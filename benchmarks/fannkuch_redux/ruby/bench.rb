# fannkuch_redux (Ruby) - pancake flips over all permutations; see ../README.md.
#
# Same permutation order as the C version (count-vector generator), so the
# alternating-sign checksum agrees; checksum is sum * 100 + max_flips.
class Bench
  def initialize
    @result = 0
  end

  def run_iter(param)
    n = param
    perm1 = (0...n).to_a
    count = Array.new(n, 0)
    total = 0
    nperm = 0
    maxflips = 0
    r = n
    loop do
      while r != 1
        count[r - 1] = r
        r -= 1
      end
      perm = perm1.dup
      flips = 0
      k = perm[0]
      while k != 0
        # reverse perm[0..k]
        lo = 0
        hi = k
        while lo < hi
          perm[lo], perm[hi] = perm[hi], perm[lo]
          lo += 1
          hi -= 1
        end
        flips += 1
        k = perm[0]
      end
      maxflips = flips if flips > maxflips
      total += nperm.even? ? flips : -flips
      # next permutation
      loop do
        if r == n
          @result = total * 100 + maxflips
          return
        end
        p0 = perm1[0]
        i = 0
        while i < r
          perm1[i] = perm1[i + 1]
          i += 1
        end
        perm1[r] = p0
        count[r] -= 1
        break if count[r] > 0
        r += 1
      end
      nperm += 1
    end
  end

  def checksum
    @result
  end
end
