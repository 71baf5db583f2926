-- Seed 000's big-red-button problem: every press, i.e. every call of a
-- method named brb and every marker named brb (as `tracekit problems --brb`).
SELECT c.session, c.ts, c.thread
FROM call c
JOIN method m ON m.id = c.method AND m.session = c.session
WHERE m.name = 'brb'
UNION ALL
SELECT session, ts, thread
FROM marker
WHERE name = 'brb'
