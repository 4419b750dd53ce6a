"""Synthetic data generation (tile faces, table scenes, table videos) and recipes for the real data sets."""
