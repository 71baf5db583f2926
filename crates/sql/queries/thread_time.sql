-- Time on each thread (by name, pooled over sessions): calls, time in
-- top-level calls, and the deepest stack.
SELECT t.name AS thread,
       COUNT(*) AS calls,
       SUM(CASE WHEN c.depth = 0 THEN c.dur ELSE 0 END) AS top_level_ns,
       MAX(c.depth) AS max_depth
FROM call c
JOIN thread t ON t.id = c.thread AND t.session = c.session
GROUP BY t.name
ORDER BY top_level_ns DESC, thread
