"""A Discord bot that runs the dice and cards at a tabletop role-playing table."""
