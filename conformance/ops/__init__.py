"""The operations a driver answers: each module declares OPERATIONS; registry indexes them;
schemas documents them."""
