"""Text handling: language tags and detection, transcripts, splitting."""
