"""APIs shaped as other translation services' (LibreTranslate), over the same pipeline."""
