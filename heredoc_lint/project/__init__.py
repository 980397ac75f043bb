"""What a project's other files say of a file: how it is run, what it sources."""
