CREATE TABLE IF NOT EXISTS book (
  isbn           text PRIMARY KEY,
  title          text NOT NULL,
  author         text NOT NULL,
  price_in_cents bigint NOT NULL CHECK (price_in_cents >= 0)
);

CREATE TABLE IF NOT EXISTS sale (
  id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  isbn    text NOT NULL REFERENCES book ON DELETE CASCADE,
  copies  integer NOT NULL CHECK (copies > 0),
  sold_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX IF NOT EXISTS sale_isbn ON sale (isbn);
