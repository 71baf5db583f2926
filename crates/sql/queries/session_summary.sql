-- One line per session: how long, how many threads, methods, calls and
-- big-red-button presses.
SELECT s.session,
       s.format,
       CAST(s.horizon AS DOUBLE) / 1e9 AS seconds,
       COALESCE(t.n, 0) AS threads,
       COALESCE(m.n, 0) AS methods,
       COALESCE(c.n, 0) AS calls,
       COALESCE(o.n, 0) AS presses
FROM session s
LEFT JOIN (SELECT session, COUNT(*) AS n FROM thread GROUP BY session) t ON t.session = s.session
LEFT JOIN (SELECT session, COUNT(*) AS n FROM method GROUP BY session) m ON m.session = s.session
LEFT JOIN (SELECT session, COUNT(*) AS n FROM call GROUP BY session) c ON c.session = s.session
LEFT JOIN (SELECT session, COUNT(*) AS n FROM brb_occurrence GROUP BY session) o ON o.session = s.session
ORDER BY s.session
