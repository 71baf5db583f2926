-- The 20 methods with the most inclusive time over every session, with
-- their share of all exclusive time.
SELECT name,
       signature,
       sessions,
       calls,
       incl_ns,
       excl_ns,
       CAST(excl_ns AS DOUBLE) * 100 / (SELECT SUM(excl_ns) FROM fleet_method_profile) AS excl_percent
FROM fleet_method_profile
ORDER BY incl_ns DESC, name, signature
LIMIT 20
