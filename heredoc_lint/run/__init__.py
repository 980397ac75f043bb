"""Running checks over files: settings, discovery, workers, the cache, writing fixes."""
