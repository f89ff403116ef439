# ruff: noqa: E501
"""The migration lists as paperbot shipped them before the schema was written once
(`retrieval/stores/schema.py`), frozen here, rendered: databases they created must still open
and hold the schema the current lists create. Never edit."""

from __future__ import annotations

SQLITE_MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE collections (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        slug TEXT NOT NULL UNIQUE CHECK (slug <> '' AND slug = lower(slug)),
        next_number INTEGER NOT NULL DEFAULT 1,
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    );

    -- `rowid` is named so that the index and other tables can refer to it; it never changes.
    -- `position` is the number in `id`; `terms` lets the index be rebuilt without re-analysis.
    CREATE TABLE papers (
        rowid INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE CHECK (id = lower(id)),
        collection_id INTEGER NOT NULL REFERENCES collections (id),
        position INTEGER NOT NULL,
        external_id TEXT NOT NULL,
        title TEXT,
        abstract TEXT NOT NULL,
        label TEXT NOT NULL,
        urls TEXT NOT NULL DEFAULT '[]',
        authors TEXT NOT NULL DEFAULT '[]',
        content_hash TEXT NOT NULL UNIQUE,
        terms TEXT NOT NULL,
        added_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    );

    -- Every collection a paper was listed in, its home collection included, so that one
    -- filter query covers both.
    CREATE TABLE paper_collections (
        paper_rowid INTEGER NOT NULL REFERENCES papers (rowid),
        collection_id INTEGER NOT NULL REFERENCES collections (id),
        position INTEGER NOT NULL,
        external_id TEXT NOT NULL,
        PRIMARY KEY (paper_rowid, collection_id)
    ) WITHOUT ROWID;
    CREATE INDEX paper_collections_by_collection
        ON paper_collections (collection_id, position);

    CREATE TABLE ingested_files (
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL,
        sha256 TEXT NOT NULL UNIQUE,
        collection_id INTEGER NOT NULL REFERENCES collections (id),
        papers_added INTEGER NOT NULL,
        papers_skipped INTEGER NOT NULL,
        ingested_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    );
    CREATE INDEX ingested_files_by_collection ON ingested_files (collection_id);

    CREATE TABLE acronyms (
        acronym TEXT NOT NULL,
        expansion TEXT NOT NULL,
        papers INTEGER NOT NULL,
        PRIMARY KEY (acronym, expansion)
    ) WITHOUT ROWID;

    -- Keyed by the text id users see, so saved papers outlive index rebuilds and re-ingestion.
    CREATE TABLE reading_list (
        user_id INTEGER NOT NULL,
        paper_id TEXT NOT NULL REFERENCES papers (id),
        added_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        PRIMARY KEY (user_id, paper_id)
    );

    CREATE TABLE meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    ) WITHOUT ROWID;
    """,
    """
    CREATE INDEX papers_by_external_id ON papers (external_id COLLATE NOCASE);
    """,
    """
    CREATE TABLE conversations (
        scope TEXT PRIMARY KEY,
        user_id INTEGER NOT NULL,
        state TEXT NOT NULL,
        updated_at REAL NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX conversations_by_user ON conversations (user_id);
    CREATE INDEX conversations_by_age ON conversations (updated_at);

    CREATE TABLE answer_messages (
        message_id INTEGER PRIMARY KEY,
        scope TEXT NOT NULL,
        user_id INTEGER NOT NULL,
        state TEXT NOT NULL,
        updated_at REAL NOT NULL
    );
    CREATE INDEX answer_messages_by_user ON answer_messages (user_id);
    CREATE INDEX answer_messages_by_age ON answer_messages (updated_at);
    """,
    """
    CREATE TABLE watches (
        id INTEGER PRIMARY KEY,
        user_id INTEGER NOT NULL,
        guild_id INTEGER,
        channel_id INTEGER,
        query TEXT NOT NULL,
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        last_fired_at TEXT,
        paused_reason TEXT
    );
    CREATE INDEX watches_by_user ON watches (user_id);
    CREATE INDEX watches_by_guild ON watches (guild_id);

    CREATE TABLE watch_deliveries (
        watch_id INTEGER NOT NULL REFERENCES watches (id) ON DELETE CASCADE,
        paper_id TEXT NOT NULL,
        PRIMARY KEY (watch_id, paper_id)
    );

    CREATE TABLE watch_digests (
        id INTEGER PRIMARY KEY,
        watch_id INTEGER NOT NULL REFERENCES watches (id) ON DELETE CASCADE,
        user_id INTEGER NOT NULL,
        guild_id INTEGER,
        channel_id INTEGER,
        body TEXT NOT NULL,
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        claimed_by TEXT,
        claimed_at TEXT,
        finished_at TEXT,
        failure TEXT
    );
    CREATE INDEX watch_digests_pending ON watch_digests (claimed_by, id);
    CREATE INDEX watch_digests_by_user ON watch_digests (user_id);
    """,
    """
    CREATE TABLE shortlist (
        guild_id INTEGER NOT NULL,
        paper_id TEXT NOT NULL REFERENCES papers (id),
        added_by INTEGER NOT NULL,
        added_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        note TEXT,
        PRIMARY KEY (guild_id, paper_id)
    );
    CREATE INDEX shortlist_by_curator ON shortlist (added_by);
    """,
    """
    CREATE TABLE paper_activity (
        guild_id INTEGER NOT NULL,
        paper_id TEXT NOT NULL,
        day TEXT NOT NULL,
        opens INTEGER NOT NULL DEFAULT 0,
        saves INTEGER NOT NULL DEFAULT 0,
        asks INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (guild_id, paper_id, day)
    );
    CREATE INDEX paper_activity_by_day ON paper_activity (guild_id, day);
    """,
    """
    CREATE TABLE nodes (
        node_id TEXT PRIMARY KEY,
        host TEXT NOT NULL,
        pid INTEGER NOT NULL,
        shard_ids TEXT NOT NULL,
        generation INTEGER NOT NULL,
        started_at REAL NOT NULL,
        heartbeat_at REAL NOT NULL
    );
    """,
    """
    ALTER TABLE nodes ADD COLUMN guilds INTEGER NOT NULL DEFAULT 0;
    """,
)

POSTGRES_MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE paperbot_schema (
        only_row BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (only_row),
        version INTEGER NOT NULL
    );
    INSERT INTO paperbot_schema (version) VALUES (0);

    -- BY DEFAULT (not ALWAYS) identities: `paperbot migrate-store` keeps SQLite's ids.
    CREATE TABLE collections (
        id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        name TEXT NOT NULL,
        slug TEXT NOT NULL UNIQUE CHECK (slug <> '' AND slug = lower(slug)),
        next_number INTEGER NOT NULL DEFAULT 1,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
    );

    -- `key` is the paper key of the Store Protocol: from the identity's sequence, taken under
    -- the ingest lock, so keys ascend in commit order and `index_rows(after_key=...)` misses
    -- nothing another process committed. `position` is the number in `id`.
    CREATE TABLE papers (
        key BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        id TEXT NOT NULL UNIQUE CHECK (id = lower(id)),
        collection_id BIGINT NOT NULL REFERENCES collections (id),
        position INTEGER NOT NULL,
        external_id TEXT NOT NULL,
        title TEXT,
        abstract TEXT NOT NULL,
        label TEXT NOT NULL,
        urls TEXT[] NOT NULL DEFAULT '{}',
        authors TEXT[] NOT NULL DEFAULT '{}',
        content_hash TEXT NOT NULL UNIQUE,
        terms TEXT NOT NULL,
        added_at TIMESTAMPTZ NOT NULL DEFAULT now()
    );
    CREATE INDEX papers_by_external_id ON papers (lower(external_id));

    -- Every collection a paper was listed in, its home collection included.
    CREATE TABLE paper_collections (
        paper_key BIGINT NOT NULL REFERENCES papers (key),
        collection_id BIGINT NOT NULL REFERENCES collections (id),
        position INTEGER NOT NULL,
        external_id TEXT NOT NULL,
        PRIMARY KEY (paper_key, collection_id)
    );
    CREATE INDEX paper_collections_by_collection ON paper_collections (collection_id, position);

    CREATE TABLE ingested_files (
        id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        path TEXT NOT NULL,
        sha256 TEXT NOT NULL UNIQUE,
        collection_id BIGINT NOT NULL REFERENCES collections (id),
        papers_added INTEGER NOT NULL,
        papers_skipped INTEGER NOT NULL,
        ingested_at TIMESTAMPTZ NOT NULL DEFAULT now()
    );
    CREATE INDEX ingested_files_by_collection ON ingested_files (collection_id);

    CREATE TABLE acronyms (
        acronym TEXT NOT NULL,
        expansion TEXT NOT NULL,
        papers INTEGER NOT NULL,
        PRIMARY KEY (acronym, expansion)
    );

    -- Keyed by the text id users see; `id` orders a list by when each paper was saved.
    CREATE TABLE reading_list (
        id BIGINT GENERATED BY DEFAULT AS IDENTITY UNIQUE,
        user_id BIGINT NOT NULL,
        paper_id TEXT NOT NULL REFERENCES papers (id),
        added_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (user_id, paper_id)
    );

    CREATE TABLE meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    """,
    """
    CREATE TABLE conversations (
        scope TEXT PRIMARY KEY,
        user_id BIGINT NOT NULL,
        state TEXT NOT NULL,
        updated_at DOUBLE PRECISION NOT NULL
    );
    CREATE INDEX conversations_by_user ON conversations (user_id);
    CREATE INDEX conversations_by_age ON conversations (updated_at);

    CREATE TABLE answer_messages (
        message_id BIGINT PRIMARY KEY,
        scope TEXT NOT NULL,
        user_id BIGINT NOT NULL,
        state TEXT NOT NULL,
        updated_at DOUBLE PRECISION NOT NULL
    );
    CREATE INDEX answer_messages_by_user ON answer_messages (user_id);
    CREATE INDEX answer_messages_by_age ON answer_messages (updated_at);
    """,
    """
    CREATE TABLE watches (
        id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        user_id BIGINT NOT NULL,
        guild_id BIGINT,
        channel_id BIGINT,
        query TEXT NOT NULL,
        created_at TEXT NOT NULL DEFAULT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        last_fired_at TEXT,
        paused_reason TEXT
    );
    CREATE INDEX watches_by_user ON watches (user_id);
    CREATE INDEX watches_by_guild ON watches (guild_id);

    CREATE TABLE watch_deliveries (
        watch_id BIGINT NOT NULL REFERENCES watches (id) ON DELETE CASCADE,
        paper_id TEXT NOT NULL,
        PRIMARY KEY (watch_id, paper_id)
    );

    CREATE TABLE watch_digests (
        id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        watch_id BIGINT NOT NULL REFERENCES watches (id) ON DELETE CASCADE,
        user_id BIGINT NOT NULL,
        guild_id BIGINT,
        channel_id BIGINT,
        body TEXT NOT NULL,
        created_at TEXT NOT NULL DEFAULT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        claimed_by TEXT,
        claimed_at TEXT,
        finished_at TEXT,
        failure TEXT
    );
    CREATE INDEX watch_digests_pending ON watch_digests (claimed_by, id);
    CREATE INDEX watch_digests_by_user ON watch_digests (user_id);

    CREATE TABLE shortlist (
        guild_id BIGINT NOT NULL,
        paper_id TEXT NOT NULL REFERENCES papers (id),
        added_by BIGINT NOT NULL,
        added_at TEXT NOT NULL DEFAULT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        note TEXT,
        PRIMARY KEY (guild_id, paper_id)
    );
    CREATE INDEX shortlist_by_curator ON shortlist (added_by);

    CREATE TABLE paper_activity (
        guild_id BIGINT NOT NULL,
        paper_id TEXT NOT NULL,
        day TEXT NOT NULL,
        opens INTEGER NOT NULL DEFAULT 0,
        saves INTEGER NOT NULL DEFAULT 0,
        asks INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (guild_id, paper_id, day)
    );
    CREATE INDEX paper_activity_by_day ON paper_activity (guild_id, day);
    """,
    """
    CREATE TABLE nodes (
        node_id TEXT PRIMARY KEY,
        host TEXT NOT NULL,
        pid BIGINT NOT NULL,
        shard_ids TEXT NOT NULL,
        generation BIGINT NOT NULL,
        started_at DOUBLE PRECISION NOT NULL,
        heartbeat_at DOUBLE PRECISION NOT NULL
    );
    """,
    """
    ALTER TABLE nodes ADD COLUMN guilds BIGINT NOT NULL DEFAULT 0;
    """,
)
