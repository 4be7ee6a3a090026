"""GraphQL bodies (DESIGN §7): checking and completing a query against a schema
(``document``), the schema fetched by introspection (``introspect``) and cached per
collection under ``.pigeon/graphql/`` (``cache``). graphql-core is imported only here, and
only when a GraphQL body is edited or sent: never at start, never for a plain send.
"""
