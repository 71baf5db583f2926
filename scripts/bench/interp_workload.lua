-- The native recorder's interpreter workload (issue 15): recursion,
-- string building, sorting and closures, run by an instrumented Lua 5.4
-- (scripts/deps/interp.sh). Usage: lua interp_workload.lua [SCALE]
local scale = tonumber(arg and arg[1]) or 1

local function fib(n)
  if n < 2 then return n end
  return fib(n - 1) + fib(n - 2)
end

local function build_strings(n)
  local parts = {}
  for i = 1, n do
    parts[#parts + 1] = string.format("%d:%s", i, string.rep("x", i % 7))
  end
  return table.concat(parts, ",")
end

local function sort_records(n)
  local t = {}
  local seed = 42
  for i = 1, n do
    seed = (seed * 1103515245 + 12345) % 2147483648
    t[i] = { key = seed % 100000, name = "r" .. i }
  end
  table.sort(t, function(a, b) return a.key < b.key end)
  return t[1].key
end

local function closures(n)
  local acc = 0
  local makers = {}
  for i = 1, n do
    makers[i] = function(x) return x + i end
  end
  for i = 1, n do
    acc = makers[i](acc) % 1000003
  end
  return acc
end

local total = 0
for _ = 1, scale do
  total = total + fib(22)
  total = total + #build_strings(20000)
  total = total + sort_records(20000)
  total = total + closures(50000)
end
print(total)
