-- Methods whose single calls last longest: the longest call, the mean
-- call and how many calls, pooled over sessions.
SELECT m.qualified AS name,
       COUNT(*) AS calls,
       MAX(c.dur) AS longest_ns,
       AVG(c.dur) AS mean_ns
FROM call c
JOIN method m ON m.id = c.method AND m.session = c.session
GROUP BY m.qualified
ORDER BY longest_ns DESC, name
LIMIT 20
