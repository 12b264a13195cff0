"""What many tests share: fake bots, rule helpers, process helpers, logs for the viewer."""
