-- Run at every start (spring.sql.init.mode: always), so it adds only what is missing.
INSERT INTO book (isbn, title, author, price_in_cents) VALUES
  ('9780441013593', 'Dune', 'Frank Herbert', 1099),
  ('9780547928227', 'The Hobbit', 'J. R. R. Tolkien', 1499),
  ('9780451524935', 'Nineteen Eighty-Four', 'George Orwell', 999),
  ('9780141439518', 'Pride and Prejudice', 'Jane Austen', 799),
  ('9780060850524', 'Brave New World', 'Aldous Huxley', 1299),
  ('9780316769488', 'The Catcher in the Rye', 'J. D. Salinger', 1099)
ON CONFLICT (isbn) DO NOTHING;

INSERT INTO sale (isbn, copies)
SELECT isbn, copies FROM (VALUES
  ('9780441013593', 3), ('9780547928227', 5), ('9780451524935', 2),
  ('9780441013593', 4), ('9780141439518', 1), ('9780060850524', 2)
) AS seed (isbn, copies)
WHERE NOT EXISTS (SELECT 1 FROM sale);
