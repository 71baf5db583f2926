-- The value every held context item (int, long, string) had at each
-- big-red-button press: the rows hints are computed from.
SELECT o.session,
       o.ts,
       o.thread,
       c.label,
       c.int_value,
       c.string_value
FROM brb_occurrence o
JOIN context_span c ON c.session = o.session AND c.ts <= o.ts AND o.ts < c.end_ts
WHERE c.type IN ('int', 'long', 'string')
