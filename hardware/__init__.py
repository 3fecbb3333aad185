"""hardware package."""
