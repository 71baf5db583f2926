-- Every counter track's samples, range and mean, with its unit.
SELECT t.name,
       t.unit,
       t.kind,
       COUNT(*) AS samples,
       MIN(c.value) AS min_value,
       MAX(c.value) AS max_value,
       AVG(c.value) AS mean_value
FROM counter c
JOIN counter_track t ON t.id = c.track AND t.session = c.session
GROUP BY t.name, t.unit, t.kind
ORDER BY t.name, t.unit NULLS FIRST, t.kind
