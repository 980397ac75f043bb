"""What a run shows: output formats, the console summary, `explain`."""
