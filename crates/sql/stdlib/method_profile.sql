-- Traceview's profile, per session and method: calls (recursive ones
-- among them), inclusive time of outermost calls only, exclusive time,
-- on the wall and thread-CPU clocks (ns). Equals `tracekit profile`.
SELECT c.session,
       c.method,
       m.qualified AS name,
       m.signature,
       COUNT(*) AS calls,
       SUM(CASE WHEN c.outermost THEN 0 ELSE 1 END) AS recursive_calls,
       SUM(CASE WHEN c.outermost THEN c.dur ELSE 0 END) AS incl_ns,
       SUM(c.self_dur) AS excl_ns,
       SUM(CASE WHEN c.outermost THEN c.thread_dur ELSE 0 END) AS incl_cpu_ns,
       SUM(c.thread_self_dur) AS excl_cpu_ns
FROM call c
JOIN method m ON m.id = c.method AND m.session = c.session
GROUP BY c.session, c.method, m.qualified, m.signature
