-- toolcall-lifecycle: the shared store of tool calls (schema version 1). Applied by PostgresCallStore.applySchema();
-- every statement is idempotent. One row per call; its version is the call's compare-and-set version, and each
-- transition is one UPDATE ... WHERE session_id = ? AND call_id = ? AND version = ?.
CREATE TABLE IF NOT EXISTS toolcall_call (
  session_id  text        NOT NULL,
  call_id     text        NOT NULL,
  tool_name   text        NOT NULL,
  state       text        NOT NULL,
  version     integer     NOT NULL CHECK (version >= 0),
  document    jsonb       NOT NULL,
  seq         bigserial   NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (session_id, call_id)
);
-- The calls that have not ended, in the order they were stored (what a restarting runtime reads).
CREATE INDEX IF NOT EXISTS toolcall_call_active
  ON toolcall_call (seq)
  WHERE state NOT IN ('completed', 'failed', 'cancelled', 'permission_denied');
-- Retention: ended calls by age (PostgresCallStore.deleteEndedBefore).
CREATE INDEX IF NOT EXISTS toolcall_call_ended
  ON toolcall_call (updated_at)
  WHERE state IN ('completed', 'failed', 'cancelled', 'permission_denied');
-- Runtimes sharing the store (PostgresCallStore.shared): the runtime that holds a call RUNNING and until when; it
-- renews the lease, and once it has expired another runtime takes the call over.
ALTER TABLE toolcall_call ADD COLUMN IF NOT EXISTS lease_owner text;
ALTER TABLE toolcall_call ADD COLUMN IF NOT EXISTS lease_until timestamptz;
CREATE INDEX IF NOT EXISTS toolcall_call_lease
  ON toolcall_call (lease_owner)
  WHERE lease_owner IS NOT NULL;
-- A decision taken on any runtime finds the waiting call by its request id.
CREATE INDEX IF NOT EXISTS toolcall_call_request
  ON toolcall_call ((document #>> '{permission,requestId}'))
  WHERE state = 'permission_pending';
-- Grants made by "approve for session" (PostgresCallStore.sessionGrants()), shared by the runtimes, oldest first.
CREATE TABLE IF NOT EXISTS toolcall_session_grant (
  session_id  text        NOT NULL,
  grant_id    text        NOT NULL,
  tool_name   text        NOT NULL,
  arguments   text        NOT NULL,
  created_at  timestamptz NOT NULL,
  expires_at  timestamptz,
  seq         bigserial   NOT NULL,
  PRIMARY KEY (session_id, grant_id)
);
-- How a grant's arguments compare: 'any', 'prefix' or 'exact', with the prefix or command in arguments (its text
-- escaped by GrantPatterns, as text cannot hold every Java string). NULL on rows written before this column, whose
-- arguments are one ambiguous string ('*', 'prefix:*' or a command), read never wider than written.
ALTER TABLE toolcall_session_grant ADD COLUMN IF NOT EXISTS arguments_match text
  CHECK (arguments_match IN ('any', 'prefix', 'exact'));
-- Agents' conversations (PostgresCallStore.saveConversation): the latest AgentSnapshot of each, by conversation version.
CREATE TABLE IF NOT EXISTS toolcall_conversation (
  conversation_id text        NOT NULL PRIMARY KEY,
  version         integer     NOT NULL,
  document        jsonb       NOT NULL,
  updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS toolcall_schema (
  version integer NOT NULL PRIMARY KEY
);
INSERT INTO toolcall_schema (version) VALUES (1) ON CONFLICT DO NOTHING;
-- Every stored change is announced on channel toolcall_call as 'session_id/call_id/version' (lengths first, so ids
-- may hold any character: '<len>:<session_id><len>:<call_id>/<version>'), sent when the writing transaction commits.
CREATE OR REPLACE FUNCTION toolcall_call_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('toolcall_call', length(NEW.session_id) || ':' || NEW.session_id || length(NEW.call_id) || ':'
      || NEW.call_id || '/' || NEW.version);
  RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS toolcall_call_notify ON toolcall_call;
CREATE TRIGGER toolcall_call_notify AFTER INSERT OR UPDATE ON toolcall_call
  FOR EACH ROW EXECUTE FUNCTION toolcall_call_notify();
-- Schema version 2: who wrote each of a row's last versions ('<version>:<token>', the last 16), so that a write whose
-- commit lost its answer (the connection died) is settled by whether its own token is there, whatever the row's
-- version is now.
ALTER TABLE toolcall_call ADD COLUMN IF NOT EXISTS writers text[] NOT NULL DEFAULT '{}';
INSERT INTO toolcall_schema (version) VALUES (2) ON CONFLICT DO NOTHING;
-- Schema version 3: a conversation is held for one step by one instance (ConversationStore): its revision rises with
-- every take and every write, and owner/owner_until say who holds it and until when (the database's clock). A row
-- taken for a conversation's first step has no document yet.
ALTER TABLE toolcall_conversation ADD COLUMN IF NOT EXISTS revision bigint NOT NULL DEFAULT 0;
ALTER TABLE toolcall_conversation ADD COLUMN IF NOT EXISTS owner text;
ALTER TABLE toolcall_conversation ADD COLUMN IF NOT EXISTS owner_until timestamptz;
ALTER TABLE toolcall_conversation ALTER COLUMN document DROP NOT NULL;
INSERT INTO toolcall_schema (version) VALUES (3) ON CONFLICT DO NOTHING;
-- Schema version 4: revoked session tokens (PostgresTokenRevocations), read by every instance: all tokens of a
-- session issued up to issued_up_to (kind 'session', subject the session id), or one token (kind 'token', subject
-- its id). A check reads the primary key for two keys. A row may go once keep_until has passed (no token it refuses
-- is valid after it); each revocation deletes those first, by the index on keep_until.
CREATE TABLE IF NOT EXISTS toolcall_token_revocation (
  kind         text        NOT NULL CHECK (kind IN ('session', 'token')),
  subject      text        NOT NULL,
  issued_up_to timestamptz,
  keep_until   timestamptz NOT NULL,
  PRIMARY KEY (kind, subject),
  CHECK ((kind = 'session') = (issued_up_to IS NOT NULL))
);
CREATE INDEX IF NOT EXISTS toolcall_token_revocation_keep ON toolcall_token_revocation (keep_until);
INSERT INTO toolcall_schema (version) VALUES (4) ON CONFLICT DO NOTHING;
-- Schema version 5: every change of a conversation a reader sees (a step taken, a step's snapshot stored, a saved
-- state) is announced on channel toolcall_conversation as '<len>:<conversation_id>/<revision>', sent at commit; a
-- renewed hold is not (nothing a reader sees changed). A page on any instance follows conversations driven elsewhere.
CREATE OR REPLACE FUNCTION toolcall_conversation_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.revision = NEW.revision AND OLD.version = NEW.version THEN
    RETURN NEW;
  END IF;
  PERFORM pg_notify('toolcall_conversation', length(NEW.conversation_id) || ':' || NEW.conversation_id || '/'
      || NEW.revision);
  RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS toolcall_conversation_notify ON toolcall_conversation;
CREATE TRIGGER toolcall_conversation_notify AFTER INSERT OR UPDATE ON toolcall_conversation
  FOR EACH ROW EXECUTE FUNCTION toolcall_conversation_notify();
INSERT INTO toolcall_schema (version) VALUES (5) ON CONFLICT DO NOTHING;
-- Schema version 6: a write nobody listens for is not announced. A runtime alone on its store (PostgresCallStore.calls())
-- marks its writes quiet: notifying transactions commit one at a time (the notification queue's lock), which capped
-- such a store far below the database's own rate. Writes through shared(...) and the store's own methods announce.
ALTER TABLE toolcall_call ADD COLUMN IF NOT EXISTS quiet boolean NOT NULL DEFAULT false;
DROP TRIGGER IF EXISTS toolcall_call_notify ON toolcall_call;
CREATE TRIGGER toolcall_call_notify AFTER INSERT OR UPDATE ON toolcall_call
  FOR EACH ROW WHEN (NOT NEW.quiet) EXECUTE FUNCTION toolcall_call_notify();
INSERT INTO toolcall_schema (version) VALUES (6) ON CONFLICT DO NOTHING;
