"""ioboard-submit: upload a result to an ioboard server and follow its ingest."""
