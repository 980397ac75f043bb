"""The layer stage: which texts another shell parses, and how wrappers run them."""
