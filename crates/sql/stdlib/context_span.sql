-- Each context record with the time it holds until: the item's next
-- record, or the end of the session's timeline for the last one.
SELECT x.session,
       x.track,
       t.label,
       t.type,
       x.ts,
       COALESCE(x.end_ts, s.horizon) AS end_ts,
       x.int_value,
       x.real_value,
       x.string_value
FROM context x
JOIN context_track t ON t.id = x.track AND t.session = x.session
JOIN session s ON s.session = x.session
