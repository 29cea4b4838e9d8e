// Schema migrations, applied in order inside one transaction each; the applied versions are recorded.
import type Database from 'better-sqlite3';
import { dpopProofKey } from '../store/dpop-key.js';

const MIGRATIONS: readonly { version: number; name: string; sql: string }[] = [
  {
    version: 1,
    name: 'catalog, accounts, carts, orders',
    sql: `
      CREATE TABLE collections (id TEXT PRIMARY KEY, handle TEXT NOT NULL UNIQUE, title TEXT NOT NULL, description TEXT NOT NULL, position INTEGER NOT NULL);
      CREATE TABLE products (id TEXT PRIMARY KEY, handle TEXT NOT NULL UNIQUE, title TEXT NOT NULL, description TEXT NOT NULL,
        vendor TEXT NOT NULL, tags TEXT NOT NULL, position INTEGER NOT NULL, updated_at TEXT NOT NULL);
      CREATE TABLE product_collections (product_id TEXT NOT NULL REFERENCES products(id), collection_id TEXT NOT NULL REFERENCES collections(id),
        PRIMARY KEY (product_id, collection_id));
      CREATE TABLE variants (id TEXT PRIMARY KEY, product_id TEXT NOT NULL REFERENCES products(id), sku TEXT NOT NULL UNIQUE, title TEXT NOT NULL,
        price_cents INTEGER NOT NULL CHECK (price_cents > 0), currency TEXT NOT NULL, stock INTEGER NOT NULL CHECK (stock >= 0), position INTEGER NOT NULL);
      CREATE INDEX variants_product ON variants(product_id);

      CREATE TABLE accounts (sub TEXT PRIMARY KEY, email TEXT, display_name TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('active','deleting','deleted','contact_transition')),
        self_service_eligible INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL);
      CREATE TABLE addresses (id TEXT PRIMARY KEY, account_sub TEXT NOT NULL REFERENCES accounts(sub), name TEXT NOT NULL, line1 TEXT NOT NULL,
        line2 TEXT, city TEXT NOT NULL, region TEXT, postal_code TEXT NOT NULL, country TEXT NOT NULL, phone TEXT, created_at TEXT NOT NULL);
      CREATE INDEX addresses_account ON addresses(account_sub);
      CREATE TABLE payment_methods (id TEXT PRIMARY KEY, account_sub TEXT NOT NULL REFERENCES accounts(sub), brand TEXT NOT NULL, last4 TEXT NOT NULL,
        exp_month INTEGER NOT NULL, exp_year INTEGER NOT NULL, provider_ref TEXT NOT NULL, created_at TEXT NOT NULL);
      CREATE INDEX payment_methods_account ON payment_methods(account_sub);
      CREATE TABLE orders (id TEXT PRIMARY KEY, account_sub TEXT NOT NULL REFERENCES accounts(sub), number TEXT NOT NULL UNIQUE, status TEXT NOT NULL,
        placed_at TEXT NOT NULL, currency TEXT NOT NULL, subtotal_cents INTEGER NOT NULL, shipping_cents INTEGER NOT NULL, tax_cents INTEGER NOT NULL,
        total_cents INTEGER NOT NULL, address_id TEXT, payment_method_id TEXT, updated_at TEXT NOT NULL);
      CREATE INDEX orders_account ON orders(account_sub, placed_at);
      CREATE TABLE order_lines (order_id TEXT NOT NULL REFERENCES orders(id), variant_id TEXT NOT NULL, title TEXT NOT NULL, quantity INTEGER NOT NULL,
        unit_price_cents INTEGER NOT NULL, PRIMARY KEY (order_id, variant_id));

      -- A cart belongs to a guest (owner = 'guest:<uuid>', id = that uuid) or to an account (owner = 'account:<sub>').
      CREATE TABLE carts (id TEXT PRIMARY KEY, owner TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
      CREATE TABLE cart_lines (cart_id TEXT NOT NULL REFERENCES carts(id) ON DELETE CASCADE, variant_id TEXT NOT NULL REFERENCES variants(id),
        quantity INTEGER NOT NULL CHECK (quantity > 0), added_at TEXT NOT NULL, PRIMARY KEY (cart_id, variant_id));

      CREATE TABLE recovery_operations (operation_id TEXT PRIMARY KEY, subject TEXT NOT NULL, purpose TEXT NOT NULL CHECK (purpose IN ('email','delete')),
        phase TEXT NOT NULL, pending_email TEXT, updated_at TEXT NOT NULL);
      CREATE TABLE audit_log (id INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, actor TEXT NOT NULL, action TEXT NOT NULL, target TEXT, details TEXT);
    `,
  },
  {
    version: 2,
    name: 'payments, returns, webhook deliveries, card setups, security intents',
    sql: `
      CREATE TABLE payments (id TEXT PRIMARY KEY, order_id TEXT NOT NULL REFERENCES orders(id), provider TEXT NOT NULL,
        provider_ref TEXT NOT NULL UNIQUE, status TEXT NOT NULL CHECK (status IN ('pending','succeeded','failed','refunded')),
        amount_cents INTEGER NOT NULL, refunded_cents INTEGER NOT NULL DEFAULT 0, currency TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
      CREATE INDEX payments_order ON payments(order_id);
      CREATE TABLE returns (id TEXT PRIMARY KEY, order_id TEXT NOT NULL REFERENCES orders(id), account_sub TEXT NOT NULL, reason TEXT NOT NULL,
        status TEXT NOT NULL, created_at TEXT NOT NULL);
      CREATE INDEX returns_order ON returns(order_id);
      -- Deliveries of the payment provider, by event id: a retried delivery is answered without processing it again.
      CREATE TABLE webhook_events (event_id TEXT PRIMARY KEY, type TEXT NOT NULL, outcome TEXT NOT NULL, received_at TEXT NOT NULL);
      -- Card setups the storefront admitted; the webhook completes them into saved payment methods.
      CREATE TABLE card_setups (id TEXT PRIMARY KEY, account_sub TEXT NOT NULL REFERENCES accounts(sub), status TEXT NOT NULL CHECK (status IN ('admitted','completed')),
        payment_method_id TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
      CREATE TABLE security_intents (id INTEGER PRIMARY KEY AUTOINCREMENT, intent_id TEXT NOT NULL UNIQUE, subject TEXT NOT NULL, kind TEXT NOT NULL,
        payload TEXT NOT NULL, received_at TEXT NOT NULL);
      ALTER TABLE orders ADD COLUMN idempotency_key TEXT;
      ALTER TABLE recovery_operations ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 3,
    name: 'assistant sessions, connected agents, agent authorizations, recovery lock',
    sql: `
      -- Assistant sessions the identity-provider proxy registers (POST /internal/assistant/sessions/signed-out) and binds to an
      -- account when an agent is connected: state and live scopes (JSON array) are what the actor stage intersects with.
      CREATE TABLE assistant_sessions (session_id TEXT PRIMARY KEY, client_id TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('signed_in','signed_out')), subject TEXT, agent_id TEXT, scopes TEXT NOT NULL,
        created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
      CREATE INDEX assistant_sessions_agent ON assistant_sessions(subject, agent_id);
      -- Agents a customer connected (POST /internal/assistant/agents/connected).
      CREATE TABLE connected_agents (subject TEXT NOT NULL, agent_id TEXT NOT NULL, client_id TEXT NOT NULL, permissions TEXT NOT NULL,
        connected_at TEXT NOT NULL, updated_at TEXT NOT NULL, PRIMARY KEY (subject, agent_id));
      -- The current authorization decision per account and agent (POST /internal/agent-authorization); permissions is a JSON array.
      CREATE TABLE agent_authorizations (subject TEXT NOT NULL, agent_id TEXT NOT NULL, permissions TEXT NOT NULL,
        decision TEXT NOT NULL CHECK (decision IN ('granted','revoked')), updated_at TEXT NOT NULL, PRIMARY KEY (subject, agent_id));
      -- Recovery: the phase a resumption lock (phase 'resuming') was taken from and when; when the provider condition cleared.
      ALTER TABLE recovery_operations ADD COLUMN locked_from TEXT;
      ALTER TABLE recovery_operations ADD COLUMN locked_at TEXT;
      ALTER TABLE recovery_operations ADD COLUMN provider_cleared_at TEXT;
    `,
  },
  {
    version: 4,
    name: 'dpop proofs, server secrets',
    sql: `
      -- Accepted DPoP proofs (docs/assistants.md): one row per key thumbprint and jti, kept until expires_at (epoch seconds) so
      -- that every instance on this file refuses a replay; the job clean_dpop_proofs deletes expired rows.
      CREATE TABLE dpop_proofs (jkt TEXT NOT NULL, jti TEXT NOT NULL, expires_at INTEGER NOT NULL, recorded_at INTEGER NOT NULL,
        PRIMARY KEY (jkt, jti)) WITHOUT ROWID;
      CREATE INDEX dpop_proofs_expiry ON dpop_proofs(expires_at);
      -- Secrets the instances on one file must share and nobody configured (the DPoP nonce key when DPOP_NONCE_KEY is unset).
      CREATE TABLE server_secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL, created_at TEXT NOT NULL);
    `,
  },
  {
    version: 5,
    name: 'assistant conversations and their events',
    sql: `
      -- Assistant conversations (docs/conversations.md). A conversation belongs to one assistant session signed in to one
      -- account; another session (or the same session signed in to another account) does not see it.
      CREATE TABLE conversations (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, account_sub TEXT NOT NULL, agent_id TEXT NOT NULL,
        mode TEXT NOT NULL CHECK (mode IN ('direct','handoff')), status TEXT NOT NULL CHECK (status IN ('open','closed','timed_out')),
        topic TEXT, handoff_id TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, ended_at TEXT);
      CREATE INDEX conversations_owner ON conversations(session_id, account_sub, created_at);
      -- At most one open direct conversation per owner, whatever the number of processes on this file.
      CREATE UNIQUE INDEX conversations_one_open_direct ON conversations(session_id, account_sub) WHERE mode = 'direct' AND status = 'open';
      -- Everything that happens in a conversation, numbered per conversation (seq is the event stream's id): messages (the
      -- assistant's writes and the hub's turns, once per turn_id) and status changes (closed, timed_out).
      CREATE TABLE conversation_events (conversation_id TEXT NOT NULL REFERENCES conversations(id), seq INTEGER NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('message','status')), message_id TEXT UNIQUE, author TEXT, text TEXT, turn_id TEXT, status TEXT,
        at TEXT NOT NULL, PRIMARY KEY (conversation_id, seq)) WITHOUT ROWID;
      CREATE UNIQUE INDEX conversation_events_turn ON conversation_events(conversation_id, turn_id) WHERE turn_id IS NOT NULL;
    `,
  },
  {
    version: 6,
    name: 'checkout attempts, the simulated provider ledger',
    sql: `
      -- A saved-card checkout in flight (docs/checkout.md, Crash safety): written before the charge, so that a crash between
      -- the charge and the order leaves a row that says what was being bought and for how much. plan is the order to write
      -- (JSON: lines, totals, address, card, audit). States: charging -> placed | declined | refund_due -> refunded;
      -- charging -> abandoned when the provider never charged it; void_due after a provider outage (refund what is found).
      CREATE TABLE checkout_attempts (id TEXT PRIMARY KEY, account_sub TEXT NOT NULL, cart_owner TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('charging','void_due','placed','declined','refund_due','refunded','abandoned')),
        provider TEXT NOT NULL, provider_ref TEXT, amount_cents INTEGER NOT NULL, currency TEXT NOT NULL, plan TEXT NOT NULL,
        created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
      CREATE INDEX checkout_attempts_open ON checkout_attempts(state, created_at) WHERE state IN ('charging','refund_due');
      -- The simulated provider's own books (PAYMENT_PROVIDER=simulated): what a real provider keeps on its side, kept in this
      -- file so that it outlives a crash of the service. Charges are keyed by order id, refunds by their idempotency key.
      CREATE TABLE simulated_charges (id TEXT PRIMARY KEY, order_id TEXT NOT NULL UNIQUE, status TEXT NOT NULL,
        amount_cents INTEGER NOT NULL, refunded_cents INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL);
      CREATE TABLE simulated_refunds (id TEXT PRIMARY KEY, charge_id TEXT NOT NULL, idempotency_key TEXT UNIQUE,
        amount_cents INTEGER NOT NULL, created_at TEXT NOT NULL);
    `,
  },
  {
    version: 7,
    name: 'catalog and access versions',
    sql: `
      -- One counter that every change to the catalog's tables moves, in the transaction that makes the change: a process
      -- keeps its catalog reads while it is unchanged, whichever connection or process wrote (store/kept-reads.ts).
      CREATE TABLE catalog_version (v INTEGER NOT NULL);
      INSERT INTO catalog_version (v) VALUES (0);
      -- The same for who may act: accounts and the assistant state the identity-provider proxy reports.
      CREATE TABLE access_version (v INTEGER NOT NULL);
      INSERT INTO access_version (v) VALUES (0);
      CREATE TRIGGER access_version_accounts_insert AFTER INSERT ON accounts BEGIN UPDATE access_version SET v = v + 1; END;
      CREATE TRIGGER access_version_accounts_update AFTER UPDATE ON accounts BEGIN UPDATE access_version SET v = v + 1; END;
      CREATE TRIGGER access_version_accounts_delete AFTER DELETE ON accounts BEGIN UPDATE access_version SET v = v + 1; END;
      CREATE TRIGGER access_version_assistant_sessions_insert AFTER INSERT ON assistant_sessions BEGIN UPDATE access_version SET v = v + 1; END;
      CREATE TRIGGER access_version_assistant_sessions_update AFTER UPDATE ON assistant_sessions BEGIN UPDATE access_version SET v = v + 1; END;
      CREATE TRIGGER access_version_assistant_sessions_delete AFTER DELETE ON assistant_sessions BEGIN UPDATE access_version SET v = v + 1; END;
      CREATE TRIGGER access_version_agent_authorizations_insert AFTER INSERT ON agent_authorizations BEGIN UPDATE access_version SET v = v + 1; END;
      CREATE TRIGGER access_version_agent_authorizations_update AFTER UPDATE ON agent_authorizations BEGIN UPDATE access_version SET v = v + 1; END;
      CREATE TRIGGER access_version_agent_authorizations_delete AFTER DELETE ON agent_authorizations BEGIN UPDATE access_version SET v = v + 1; END;
      CREATE TRIGGER access_version_connected_agents_insert AFTER INSERT ON connected_agents BEGIN UPDATE access_version SET v = v + 1; END;
      CREATE TRIGGER access_version_connected_agents_update AFTER UPDATE ON connected_agents BEGIN UPDATE access_version SET v = v + 1; END;
      CREATE TRIGGER access_version_connected_agents_delete AFTER DELETE ON connected_agents BEGIN UPDATE access_version SET v = v + 1; END;
      CREATE TRIGGER catalog_version_products_insert AFTER INSERT ON products BEGIN UPDATE catalog_version SET v = v + 1; END;
      CREATE TRIGGER catalog_version_products_update AFTER UPDATE ON products BEGIN UPDATE catalog_version SET v = v + 1; END;
      CREATE TRIGGER catalog_version_products_delete AFTER DELETE ON products BEGIN UPDATE catalog_version SET v = v + 1; END;
      CREATE TRIGGER catalog_version_variants_insert AFTER INSERT ON variants BEGIN UPDATE catalog_version SET v = v + 1; END;
      CREATE TRIGGER catalog_version_variants_update AFTER UPDATE ON variants BEGIN UPDATE catalog_version SET v = v + 1; END;
      CREATE TRIGGER catalog_version_variants_delete AFTER DELETE ON variants BEGIN UPDATE catalog_version SET v = v + 1; END;
      CREATE TRIGGER catalog_version_collections_insert AFTER INSERT ON collections BEGIN UPDATE catalog_version SET v = v + 1; END;
      CREATE TRIGGER catalog_version_collections_update AFTER UPDATE ON collections BEGIN UPDATE catalog_version SET v = v + 1; END;
      CREATE TRIGGER catalog_version_collections_delete AFTER DELETE ON collections BEGIN UPDATE catalog_version SET v = v + 1; END;
      CREATE TRIGGER catalog_version_product_collections_insert AFTER INSERT ON product_collections BEGIN UPDATE catalog_version SET v = v + 1; END;
      CREATE TRIGGER catalog_version_product_collections_update AFTER UPDATE ON product_collections BEGIN UPDATE catalog_version SET v = v + 1; END;
      CREATE TRIGGER catalog_version_product_collections_delete AFTER DELETE ON product_collections BEGIN UPDATE catalog_version SET v = v + 1; END;
    `,
  },
  {
    version: 8,
    name: 'dpop proofs keyed by a digest',
    sql: `
      -- A replay cache holds a row per accepted proof for the iat window plus a minute (six minutes by default): keyed by a
      -- 16-byte digest of the thumbprint and jti (store/dpop-key.ts) instead of both strings, a row and its expiry entry take a
      -- quarter of the space. Rows recorded before the upgrade keep refusing their replays.
      CREATE TABLE dpop_proofs_by_digest (proof BLOB PRIMARY KEY, expires_at INTEGER NOT NULL) WITHOUT ROWID;
      INSERT INTO dpop_proofs_by_digest (proof, expires_at) SELECT dpop_proof_key(jkt, jti), expires_at FROM dpop_proofs WHERE true
        ON CONFLICT (proof) DO NOTHING;
      DROP TABLE dpop_proofs;
      ALTER TABLE dpop_proofs_by_digest RENAME TO dpop_proofs;
      CREATE INDEX dpop_proofs_expiry ON dpop_proofs(expires_at);
    `,
  },
  {
    version: 9,
    name: 'checkout claims by cart',
    sql: `
      -- A checkout claims its cart by writing its attempt, in the transaction that first looks for another attempt of the
      -- same cart still charging (store/checkout-attempts.ts, claimAttempt): this index makes that look-up one seek.
      CREATE INDEX checkout_attempts_charging_cart ON checkout_attempts(cart_owner) WHERE state = 'charging';
    `,
  },
];

/** Applies the migrations not yet applied, in order; `upTo` stops after that version (tests of an upgrade). */
export function migrate(db: Database.Database, upTo = Infinity): void {
  // Migration 8 rekeys recorded proofs with the same digest the store computes.
  db.function('dpop_proof_key', { deterministic: true }, (jkt, jti) => dpopProofKey(String(jkt), String(jti)));
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  const applied = new Set(db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[]);
  for (const m of MIGRATIONS) {
    if (m.version > upTo) break;
    if (applied.has(m.version)) continue;
    // IMMEDIATE: two processes starting on one new file must not both apply a migration.
    db.transaction(() => {
      const again = db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?').get(m.version);
      if (again) return;
      db.exec(m.sql);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
        m.version,
        m.name,
        new Date().toISOString(),
      );
    }).immediate();
  }
}
