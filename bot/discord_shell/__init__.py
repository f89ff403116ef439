"""The Discord shell: the client, its cogs, views and rendering for Discord."""
