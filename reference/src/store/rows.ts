// The rows of the orders and payments tables as the store reads them: declared once, each reader picking its columns.
import { ORDER_STATUSES, PAYMENT_STATUSES } from '../../../contract/seed.js';

export type OrderStatus = (typeof ORDER_STATUSES)[number];
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export interface OrderRow {
  id: string;
  account_sub: string;
  number: string;
  status: OrderStatus;
  placed_at: string;
  updated_at: string;
  currency: string;
  subtotal_cents: number;
  shipping_cents: number;
  tax_cents: number;
  total_cents: number;
  address_id: string | null;
  payment_method_id: string | null;
}

export interface PaymentRow {
  id: string;
  order_id: string;
  provider: string;
  provider_ref: string;
  status: PaymentStatus;
  amount_cents: number;
  refunded_cents: number;
  currency: string;
  created_at: string;
  updated_at: string;
}
