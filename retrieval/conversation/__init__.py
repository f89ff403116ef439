"""Chat understanding: a message -> an Intent; references resolved against conversation memory."""
