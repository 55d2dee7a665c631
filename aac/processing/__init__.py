"""Pure processing steps over Arrow batches / dataclasses: no Prefect, no network."""
