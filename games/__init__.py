"""The games app: the rules engine, the models, the state store, the services, reads, pages, email and API."""
