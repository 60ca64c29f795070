/** How a column's values are bound: the form Prisma stores them in differs by provider (see insert-rows.ts). */
export type ColumnKind = "text" | "int" | "bool" | "date";
