"""``referee ask``: replay a logged decision to a bot."""
