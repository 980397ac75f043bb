"""Agent integrations: pre-execution hooks and saved-session (transcript) scanning."""
