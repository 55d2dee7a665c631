"""The corpus on the Hugging Face Hub: policy (what may leave), layout + card, offline validation, upload, pull."""
