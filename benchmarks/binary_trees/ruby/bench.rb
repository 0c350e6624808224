# binary_trees (Ruby) - allocate and walk many perfect binary trees; see ../README.md.
#
# A node is a two-element array [left, right], a leaf is [nil, nil];
# checksum is the sum of every check (node count), as in the C version.
class Bench
  def initialize
    @result = 0
  end

  def make(d)
    return [nil, nil] if d == 0
    d -= 1
    [make(d), make(d)]
  end

  def check(t)
    left, right = t
    return 1 if left.nil?
    1 + check(left) + check(right)
  end

  def run_iter(param)
    maxd = [6, param].max
    total = check(make(maxd + 1))
    longlived = make(maxd)
    d = 4
    while d <= maxd
      (1 << (maxd - d + 4)).times { total += check(make(d)) }
      d += 2
    end
    total += check(longlived)
    @result = total
  end

  def checksum
    @result
  end
end
