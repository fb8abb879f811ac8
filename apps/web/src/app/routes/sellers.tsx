import { SellerGuide } from '../../features/seller/components/seller-guide';

/** «Для продавцов»: public, so a seller can read it before signing up. */
export default function SellersRoute() {
  return <SellerGuide />;
}
