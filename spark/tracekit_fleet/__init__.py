"""tracekit_fleet: tracekit analyses for Spark jobs over many sessions."""
