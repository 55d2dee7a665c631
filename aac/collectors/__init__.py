"""Where artifacts come from: GitHub code search (or its emulator) and local checkouts."""
