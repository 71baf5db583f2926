-- Big-red-button presses by the value each held context item (int, long,
-- string) had at the press: the raw material of seed 000's hints.
SELECT label,
       COALESCE(string_value, CAST(int_value AS STRING)) AS value,
       COUNT(*) AS presses
FROM occurrence_context
GROUP BY label, COALESCE(string_value, CAST(int_value AS STRING))
ORDER BY label, presses DESC, value NULLS FIRST
