"""Card files shipped with mahj: only our own invented sample card (the League card is copyrighted)."""
