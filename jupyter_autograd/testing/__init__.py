"""Test helpers shipped with the package (the stand-in CUDA device)."""
