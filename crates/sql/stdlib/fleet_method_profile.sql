-- The per-method profile pooled over every session: methods are matched
-- by name and signature (ids differ between sessions).
SELECT name,
       signature,
       COUNT(*) AS sessions,
       SUM(calls) AS calls,
       SUM(recursive_calls) AS recursive_calls,
       SUM(incl_ns) AS incl_ns,
       SUM(excl_ns) AS excl_ns,
       SUM(incl_cpu_ns) AS incl_cpu_ns,
       SUM(excl_cpu_ns) AS excl_cpu_ns
FROM method_profile
GROUP BY name, signature
