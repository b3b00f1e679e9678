-- Input anchors (the checkpoint a user input was first submitted on) were
-- never read: an edited message finds its base in the conversation's
-- history instead. The table goes with the store that wrote it.

-- +goose Up
DROP TABLE input_anchors;

-- +goose Down
CREATE TABLE input_anchors (
    conversation_id TEXT    NOT NULL REFERENCES conversations (id),
    input_id        TEXT    NOT NULL,
    checkpoint_id   TEXT    NOT NULL REFERENCES checkpoints (id),
    created_at      TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (conversation_id, input_id)
);
