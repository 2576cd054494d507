"""Model clients (chat, VLM): the lowest layer tools and the agent call models through."""
